import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The strings of the catalog, each kept once: backend names, rule ids and content types.
package struct CatalogStrings: Sendable {
    /// The index that stands for "no string".
    package static let none = UInt16.max
    private var strings: [String] = []
    private var indices: [ExactString: UInt16] = [:]
    /// The UTF-8 bytes of each string, by index: a log names the same few strings in every record, and matching
    /// bytes spares making a `String` per record just to look it up.
    private var bytes: [[UInt8]] = []
    /// The index that the last lookup of each field position found.
    private var recent: [UInt16] = [.max, .max, .max]

    package init() {}

    package subscript(index: UInt16) -> String { strings[Int(index)] }

    /// The index of `string`, adding it when it is new; `nil` when the table already holds 65,534 strings.
    /// Strings are at most 254 UTF-8 bytes: longer ones are cut at a scalar boundary.
    package mutating func intern(_ string: String) -> UInt16? {
        var text = string
        if text.utf8.count > 254 {
            var scalars = String.UnicodeScalarView()
            var length = 0
            for scalar in string.unicodeScalars {
                length += String(scalar).utf8.count
                if length > 254 { break }
                scalars.append(scalar)
            }
            text = String(scalars)
        }
        if let index = indices[ExactString(text)] { return index }
        guard strings.count < Int(Self.none) else { return nil }
        let index = UInt16(strings.count)
        strings.append(text)
        bytes.append(Array(text.utf8))
        indices[ExactString(text)] = index
        return index
    }

    /// ``intern(_:)`` of a record's `field` (0 backend, 1 rule, 2 content type): the string last interned for
    /// that field is compared first, byte for byte, since puts mostly repeat it.
    package mutating func intern(_ string: String, field: Int) -> UInt16? {
        var text = string
        guard text.utf8.count <= 254 else { return intern(string) }
        return text.withUTF8 { intern(UnsafeRawBufferPointer($0), field: field) }
    }

    /// The index of the string whose UTF-8 bytes are `raw`, adding it when it is new; `field` (0, 1 or 2) names
    /// the position in the record, whose last answer is tried first.
    package mutating func intern(_ raw: UnsafeRawBufferPointer, field: Int) -> UInt16? {
        let guess = recent[field]
        if guess != Self.none,
            bytes[Int(guess)].withUnsafeBytes({
                $0.count == raw.count && (raw.isEmpty || memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0)
            })
        {
            return guess
        }
        let found = intern(String(decoding: raw, as: UTF8.self))
        if let found { recent[field] = found }
        return found
    }

    package func optional(_ index: UInt16) -> String? {
        index == Self.none ? nil : strings[Int(index)]
    }
}
