/// A byte count that prints as `512 B`, `64 KiB` or `1.5 MiB`.
package struct ByteCount: CustomStringConvertible {
    package var value: Int
    package init(_ value: Int) { self.value = value }

    package var description: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var amount = Double(value)
        var unit = 0
        while abs(amount) >= 1024, unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        if unit == 0 { return "\(value) B" }
        let rounded = (amount * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }
}
