import StrataCore

extension CatalogRecord {
    /// A record as read from the log, its key still pointing into the bytes read: reading a million-key log
    /// applies each one to the in-memory table without making a `String` per key.
    enum Borrowed {
        case set(key: UnsafeRawBufferPointer, entry: CatalogEntry)
        case remove(key: UnsafeRawBufferPointer)
        case intent(key: UnsafeRawBufferPointer, from: Tier?, to: Tier)
        case settle(key: UnsafeRawBufferPointer)

        /// The key's UTF-8 bytes.
        var key: UnsafeRawBufferPointer {
            switch self {
            case .set(let key, _), .remove(let key), .intent(let key, _, _), .settle(let key): key
            }
        }

        /// The record with its key copied out of the bytes read.
        var owned: CatalogRecord {
            switch self {
            case .set(let key, let entry): .set(key: Self.string(key), entry: entry)
            case .remove(let key): .remove(key: Self.string(key))
            case .intent(let key, let from, let to): .intent(key: Self.string(key), from: from, to: to)
            case .settle(let key): .settle(key: Self.string(key))
            }
        }

        private static func string(_ key: UnsafeRawBufferPointer) -> String {
            String(decoding: key, as: UTF8.self)
        }
    }
}
