public import Foundation
public import StrataCore

/// The byte-level view of the file store, so the selector's file-like values land here.
extension FileStore: StorageBackend {
    public var tier: Tier { .files }
    public var name: String { "filesystem" }

    /// Per-file locks across processes.
    public var concurrencyGuarantee: String { facts.concurrencyGuarantee }

    /// The configuration's ``FilesConfiguration/durability`` (coalescing is taken as durable).
    public var durability: Durability { facts.durability }

    /// The files folder (one file per key, at the key's relative path) and its lock folder.
    public var layout: [StorageLayoutEntry] { facts.layout }

    /// The facts a store opened on `paths` reports, without opening it.
    public static func facts(paths: StoragePaths, configuration: FilesConfiguration) -> BackendFacts {
        let directory = paths.directoryPath(for: .files)
        return BackendFacts(
            tier: .files, name: "filesystem",
            concurrencyGuarantee: "any thread, any process: per-file locks (readers share, writers exclude), atomic "
                + "replace by rename",
            durability: configuration.durability.syncsToDisk ? .durable : .atomicOnly,
            layout: [
                StorageLayoutEntry(.folder, directory, role: "one file per key, at the key's relative path"),
                StorageLayoutEntry(
                    .folder, directory + "/" + lockFolderName, role: "per-file locks, each removed by its last holder"),
            ])
    }

    /// The facts of this store.
    public var facts: BackendFacts { Self.facts(paths: paths, configuration: configuration) }

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
