package import Foundation

/// What the fuzz targets call: the JSON Lines import's parsing and validation, on hostile lines.
package enum RecordsFuzzing {
    /// Splits into lines and decodes each as an import would (parse, then decode as a record); a line that
    /// parses must also re-serialize and parse to the same value.
    package static func jsonLines(_ data: Data) {
        for line in data.split(separator: 0x0A) {
            let bytes = [UInt8](line)
            _ = try? bytes.withUnsafeBytes { try FastJSONDecoder.decode(AnyRecord.self, from: $0) }
            guard let value = try? bytes.withUnsafeBytes({ try JSONValue.parse($0) }) else { continue }
            let again = value.serialized()
            guard let reparsed = try? again.withUnsafeBytes({ try JSONValue.parse($0) }),
                reparsed.normalized == value.normalized
            else {
                fatalError("JSON did not survive a round trip: \(value)")
            }
        }
    }
}

extension JSONValue {
    /// The value with integral numbers as integers: `1.5e3` and `1500` are the same JSON number.
    var normalized: JSONValue {
        switch self {
        case .number(let number) where number == number.rounded() && abs(number) < 9e15: .integer(Int64(number))
        case .array(let items): .array(items.map(\.normalized))
        case .object(let members): .object(members.mapValues(\.normalized))
        default: self
        }
    }
}
