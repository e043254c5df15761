import Foundation

extension ByteCount {
    /// Reads `1024`, `12KiB`, `12KB`, `12K`, `3MiB`, `1.5M`, `2GiB` (units of 1024); `nil` for anything else,
    /// a negative size, or one too large for an `Int`.
    package init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1_048_576, "mb": 1_048_576, "mib": 1_048_576,
            "g": 1_073_741_824, "gb": 1_073_741_824, "gib": 1_073_741_824,
        ]
        guard let number = Double(digits), let multiplier = multipliers[unit], number >= 0 else { return nil }
        let bytes = number * multiplier
        guard bytes < Double(Int.max) else { return nil }
        self.init(Int(bytes))
    }
}
