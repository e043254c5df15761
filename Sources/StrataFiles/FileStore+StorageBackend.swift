public import Foundation
public import StrataCore

/// The byte-level view of the file store, so the selector's file-like values land here. Its name and facts are
/// its engine's.
extension FileStore: StorageBackend {
    public var tier: Tier { .files }
    /// The engine's name: `filesystem`, `s3`.
    public var name: String { engine.name }
    /// The engine's own guarantee (per-file locks, conditional requests).
    public var concurrencyGuarantee: String { engine.concurrencyGuarantee }
    /// How far the engine's writes go before they return.
    public var durability: Durability { engine.durability }
    /// Where the engine keeps its files.
    public var layout: [StorageLayoutEntry] { engine.layout }

    public func put(_ value: Data, for key: String) throws { try write(value, to: key) }

    public func data(for key: String) throws -> Data? { try readIfPresent(key) }

    public func contains(_ key: String) throws -> Bool { try exists(key) }

    public func keys() throws -> [String] { try list() }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try metadata(key).map {
            StorageMetadata(key: key, size: $0.size, modificationDate: $0.modificationDate, contentType: $0.contentType)
        }
    }
}
