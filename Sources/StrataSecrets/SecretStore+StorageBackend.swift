public import Foundation
public import StrataCore

/// The byte-level view of a keyring, so a value the selector calls a credential lands here through
/// ``/StrataCore/BackendRegistry``.
///
/// Keys follow ``/StrataCore/StoragePaths/validateKey(_:)``; each is stored as the account of the service
/// ``storageBackendService`` with ``SecretAccessibility/afterFirstUnlock``.
extension SecretStore: StorageBackend {
    /// The service under which byte-level keys are stored.
    public static let storageBackendService = "strata.storage"

    public var tier: Tier { .secrets }
    public var name: String { "sodium" }

    /// Items replaced atomically, the keyring changed under its file lock.
    public var concurrencyGuarantee: String { facts.concurrencyGuarantee }

    /// Every item is written with fsync before `put` returns.
    public var durability: Durability { .durable }

    /// The keyring folder: `keyring.json`, its lock, the item manifest (which holds the small items), and one
    /// sealed file per larger item.
    public var layout: [StorageLayoutEntry] { facts.layout }

    /// The facts a store opened on `keyring` reports, without opening it (nor unlocking it).
    public static func facts(keyring: String, paths: StoragePaths) -> BackendFacts {
        let directory = paths.directoryPath(for: .secrets) + "/" + keyring
        return BackendFacts(
            tier: .secrets, name: "sodium",
            concurrencyGuarantee: "any thread, any process: each item sealed, in the manifest (small items) or a file "
                + "of its own, replaced atomically (rename); the keyring changed only under its file lock",
            durability: .durable,
            layout: [
                StorageLayoutEntry(
                    .folder, directory,
                    role:
                        "keyring '\(keyring)': one sealed file per item too large for the manifest (names hide "
                        + "accounts); rotation.key while a rotation is under way"),
                StorageLayoutEntry(
                    .file, directory + "/keyring.json", role: "key derivation parameters, wrapped data and name keys"),
                StorageLayoutEntry(
                    .file, directory + "/keyring.lock", role: "lock file, held while the keyring changes"),
                StorageLayoutEntry(
                    .file, directory + "/items.manifest",
                    role: "authenticated item generations (rollback detection), and the small items, sealed"),
                StorageLayoutEntry(
                    .file, directory + "/items.anchor",
                    role: "the manifest's last durable write (detects an older manifest put back)"),
            ])
    }

    /// The facts of this keyring.
    public var facts: BackendFacts { Self.facts(keyring: keyring, paths: paths) }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .secrets)
        try set(Secret(value), service: Self.storageBackendService, account: key, accessibility: .afterFirstUnlock)
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .secrets)
        return try get(service: Self.storageBackendService, account: key)?.data
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .secrets)
        return try delete(service: Self.storageBackendService, account: key)
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .secrets)
        return try contains(service: Self.storageBackendService, account: key)
    }

    public func keys() throws -> [String] {
        try items(service: Self.storageBackendService).map(\.account).sorted()
    }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .secrets)
        return try attributes(service: Self.storageBackendService, account: key).map {
            StorageMetadata(key: key, size: $0.valueSize, modificationDate: $0.modificationDate)
        }
    }
}
