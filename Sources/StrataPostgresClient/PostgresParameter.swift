import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parameter of a statement; the SQL casts each one (`$1::jsonb`), which tells the server its type.
package enum PostgresParameter {
    /// Text, sent in PostgreSQL's text format.
    case text(String)
    /// UTF-8 bytes, sent in the text format without making a `String` first.
    case bytes(UnsafeRawBufferPointer)
    /// A value's binary form, sent in PostgreSQL's binary format: for a `bytea` its bytes (no hex encoding on
    /// either side), for a `text` its UTF-8. Only for a parameter whose SQL casts it to such a type.
    case binary([UInt8])
    case null

    /// Lends libpq the values (the text format's NUL-terminated), their lengths and their formats (0 text, 1
    /// binary), copied into one temporary block: no allocation per parameter, none at all for small ones.
    static func withValues<T>(
        _ parameters: [PostgresParameter],
        _ body: (
            _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?,
            _ formats: UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        let count = parameters.count
        guard count > 0 else { return body(nil, nil, nil) }
        var byteCount = 0
        for parameter in parameters { byteCount += parameter.byteCount + 1 }
        return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { numbers in
                withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 1) { storage in
                    let lengths = numbers.baseAddress!
                    let formats = lengths + count
                    var offset = 0
                    for (index, parameter) in parameters.enumerated() {
                        let start = storage.baseAddress! + offset
                        var written = 0
                        switch parameter {
                        case .null:
                            values[index] = nil
                            (lengths + index).initialize(to: 0)
                            (formats + index).initialize(to: 0)
                            continue
                        case .text(let text):
                            written = text.utf8.count
                            UnsafeMutableRawBufferPointer(rebasing: storage[offset...]).copyBytes(from: text.utf8)
                        case .bytes(let bytes):
                            if let base = bytes.baseAddress { start.copyMemory(from: base, byteCount: bytes.count) }
                            written = bytes.count
                        case .binary(let bytes):
                            written = bytes.count
                            bytes.withUnsafeBytes {
                                if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: written) }
                            }
                        }
                        start.storeBytes(of: 0, toByteOffset: written, as: UInt8.self)
                        values[index] = UnsafePointer(start.assumingMemoryBound(to: CChar.self))
                        (lengths + index).initialize(to: Int32(written))
                        if case .binary = parameter {
                            (formats + index).initialize(to: 1)
                        } else {
                            (formats + index).initialize(to: 0)
                        }
                        offset += written + 1
                    }
                    return body(UnsafePointer(values.baseAddress), UnsafePointer(lengths), UnsafePointer(formats))
                }
            }
        }
    }
}

extension PostgresParameter {
    /// Whether the value goes in the text format and holds a NUL byte, where libpq would end it: PostgreSQL's text
    /// cannot hold U+0000, and the value would otherwise be cut short without a word.
    var isTextWithNUL: Bool {
        switch self {
        case .null, .binary: false
        case .text(let text):
            text.utf8.withContiguousStorageIfAvailable {
                $0.isEmpty ? false : memchr($0.baseAddress!, 0, $0.count) != nil
            }
                ?? text.utf8.contains(0)
        case .bytes(let bytes): bytes.count > 0 && memchr(bytes.baseAddress!, 0, bytes.count) != nil
        }
    }

    /// The size of the value sent.
    var byteCount: Int {
        switch self {
        case .null: 0
        case .text(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        case .binary(let bytes): bytes.count
        }
    }
}
