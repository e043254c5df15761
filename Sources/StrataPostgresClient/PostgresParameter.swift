import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parameter, sent in PostgreSQL's text format (the SQL casts it).
package enum PostgresParameter {
    case text(String)
    /// UTF-8 bytes, sent without making a `String` first.
    case bytes(UnsafeRawBufferPointer)
    case null

    /// Lends NUL-terminated copies of the values to libpq (the text format is NUL-terminated).
    static func withPointers<T>(_ parameters: [PostgresParameter], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var owned: [UnsafeMutablePointer<CChar>?] = []
        owned.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter {
            case .null: owned.append(nil)
            case .text(let text): owned.append(strdup(text))
            case .bytes(let bytes):
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                if let base = bytes.baseAddress { memcpy(copy, base, bytes.count) }
                copy[bytes.count] = 0
                owned.append(copy)
            }
        }
        defer { for pointer in owned { free(pointer) } }
        return body(owned.map { UnsafePointer($0) })
    }
}

extension PostgresParameter {
    /// The size of the value sent.
    var byteCount: Int {
        switch self {
        case .null: 0
        case .text(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        }
    }
}
