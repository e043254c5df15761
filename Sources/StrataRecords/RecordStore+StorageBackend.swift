public import Foundation
public import StrataCore

/// The byte-level view of a store (its engine's key-value table), so ``/StrataCore/BackendRegistry`` can route values
/// here.
extension RecordStore: StorageBackend {
    public var tier: Tier { .records }
    /// The engine's name: `sqlite`, `postgres`.
    public var name: String { engine.name }
    /// The engine's own guarantee (SQLite's locking, PostgreSQL's isolation).
    public var concurrencyGuarantee: String { engine.concurrencyGuarantee }
    /// How far the engine's commits go.
    public var durability: Durability { engine.durability }
    /// Where the engine keeps its data.
    public var layout: [StorageLayoutEntry] { engine.layout }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .records)
        try placement.change(setting: [key]) { _, _ in
            try engine.keyValue.put([UInt8](value), for: key, modified: Date().timeIntervalSince1970)
        }
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .records)
        return try engine.keyValue.value(for: key).map { Data($0) }
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .records)
        return try placement.change(setting: [], removing: [key]) { _, _ in try engine.keyValue.remove(key) }
    }

    /// Removes the value and its bytes from the engine's files under the store root: with SQLite, the freed
    /// space is zeroed (every connection has `secure_delete` on) and the write-ahead log is checkpointed and
    /// truncated. A PostgreSQL server's files are not under the root and are not erased.
    @discardableResult
    public func deleteSecurely(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .records)
        return try placement.change(setting: [], removing: [key]) { _, _ in try engine.keyValue.removeSecurely(key) }
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .records)
        return try engine.keyValue.sizeAndModified(for: key) != nil
    }

    public func keys() throws -> [String] { try engine.keyValue.keys() }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .records)
        return try engine.keyValue.sizeAndModified(for: key).map {
            StorageMetadata(key: key, size: $0.size, modificationDate: Date(timeIntervalSince1970: $0.modified))
        }
    }
}
