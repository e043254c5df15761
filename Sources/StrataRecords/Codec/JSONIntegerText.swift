/// The integer a JSON number's text stands for, read from its digits, never through `Double`: `1.0`, `1e2`,
/// `12.50e1` and `-0` are integers, `1.5` and `1e-1` are not, and `-9223372036854775809` is not an `Int` (through
/// `Double` it read as `Int.min`, and `9999999999999999.999989999` as `10000000000000000`).
enum JSONIntegerText {
    /// The value of `text`, a number the tape has checked, as `I`; `nil` when it is not a whole number or `I`
    /// cannot hold it (beyond 64 bits of magnitude too).
    static func exact<I: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as type: I.Type) -> I? {
        guard let (negative, magnitude) = magnitude(text) else { return nil }
        guard negative, magnitude != 0 else { return I(exactly: magnitude) }
        guard I.isSigned else { return nil }
        if magnitude <= UInt64(Int64.max) { return I(exactly: -Int64(magnitude)) }
        return magnitude == UInt64(Int64.max) + 1 ? I(exactly: Int64.min) : nil
    }

    /// The sign and magnitude of a whole number's text, or `nil` when it has a fraction that is not zero or a
    /// magnitude past `UInt64.max`.
    static func magnitude(_ text: UnsafeRawBufferPointer) -> (negative: Bool, magnitude: UInt64)? {
        guard let number = Digits(text) else { return nil }
        guard number.first < number.last else { return (number.negative, 0) }  // Zero, however written.
        // A fraction, or past 20 digits.
        guard number.scale >= 0, number.last - number.first + number.scale <= 20 else { return nil }
        var value: UInt64 = 0
        for index in number.first..<number.last {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(number.digit(index)))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        for _ in 0..<number.scale {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = shifted
        }
        return (number.negative, value)
    }

    /// Whether the number `text` stands for is whole (`1.0`, `1e2`, `-0`, `1e400`), whatever its size.
    static func isWhole(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let number = Digits(text) else { return false }
        return number.first == number.last || number.scale >= 0
    }

    /// A number's significant digits (the integer part's, then the fraction's, without leading and trailing
    /// zeros: `first..<last` of ``digit(_:)``) and the power of ten they are scaled by.
    private struct Digits {
        let text: UnsafeRawBufferPointer
        let negative: Bool
        let integerStart: Int
        let integerCount: Int
        let fractionStart: Int
        var first = 0
        var last: Int
        var scale: Int

        init?(_ text: UnsafeRawBufferPointer) {
            self.text = text
            let count = text.count
            var position = 0
            negative = count > 0 && text[0] == UInt8(ascii: "-")
            if negative { position = 1 }
            integerStart = position
            while position < count, JSONIntegerText.isDigit(text[position]) { position += 1 }
            integerCount = position - integerStart
            var fractionStart = position
            var fractionEnd = position
            if position < count, text[position] == UInt8(ascii: ".") {
                position += 1
                fractionStart = position
                while position < count, JSONIntegerText.isDigit(text[position]) { position += 1 }
                fractionEnd = position
            }
            self.fractionStart = fractionStart
            var exponent = 0
            if position < count, text[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                var exponentNegative = false
                if position < count, text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") {
                    exponentNegative = text[position] == UInt8(ascii: "-")
                    position += 1
                }
                while position < count, JSONIntegerText.isDigit(text[position]) {
                    // Clamped past the text's length (plus 20 digits): scaled by more than the digits it can
                    // shift, any non-zero digit overflows or leaves a fraction anyway (a fixed clamp did not hold
                    // for a fraction longer than it: `0.0…01e100002` is 1).
                    exponent = min(exponent * 10 + Int(text[position] - 48), count + 21)
                    position += 1
                }
                if exponentNegative { exponent = -exponent }
            }
            guard position == count, integerCount > 0 else { return nil }
            last = integerCount + fractionEnd - fractionStart
            scale = exponent - (fractionEnd - fractionStart)
            while first < last, digit(first) == 0 { first += 1 }
            while last > first, digit(last - 1) == 0 {
                last -= 1
                scale += 1
            }
        }

        func digit(_ index: Int) -> UInt8 {
            text[index < integerCount ? integerStart + index : fractionStart + index - integerCount] - 48
        }
    }

    fileprivate static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
