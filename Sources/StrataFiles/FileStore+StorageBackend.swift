public import Foundation
public import StrataCore

/// The byte-level view of the file store, so the selector's file-like values land here.
extension FileStore: StorageBackend {
    public var tier: Tier { .files }
    public var name: String { "filesystem" }

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
