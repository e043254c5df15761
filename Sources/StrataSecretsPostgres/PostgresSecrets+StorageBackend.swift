public import Foundation
public import StrataCore
public import StrataPostgres
import StrataSecrets

/// The byte-level view of the keyring, as ``/StrataSecrets/SecretStore`` gives it: each key is the account of an
/// item of the service ``/StrataSecrets/SecretStore/storageBackendService``, stored
/// ``/StrataSecrets/SecretAccessibility/afterFirstUnlock``.
extension PostgresSecrets: StorageBackend {
    public var tier: Tier { .secrets }
    public var name: String { "postgres" }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .secrets)
        try set(
            Secret(value), service: SecretStore.storageBackendService, account: key, accessibility: .afterFirstUnlock)
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .secrets)
        return try get(service: SecretStore.storageBackendService, account: key)?.data
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .secrets)
        return try delete(service: SecretStore.storageBackendService, account: key)
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .secrets)
        return try contains(service: SecretStore.storageBackendService, account: key)
    }

    public func keys() throws -> [String] {
        try items(service: SecretStore.storageBackendService).map(\.account).sorted()
    }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .secrets)
        return try attributes(service: SecretStore.storageBackendService, account: key).map {
            StorageMetadata(key: key, size: $0.valueSize, modificationDate: $0.modificationDate)
        }
    }

    /// The server's transactions under the keyring row's lock.
    public var concurrencyGuarantee: String {
        Self.facts(keyring: keyring, configuration: configuration).concurrencyGuarantee
    }

    /// Every write is committed on the server before it returns.
    public var durability: Durability { .durable }

    /// The server's tables.
    public var layout: [StorageLayoutEntry] { Self.facts(keyring: keyring, configuration: configuration).layout }

    /// The facts an instance on `keyring` reports, without connecting.
    public static func facts(keyring: String, configuration: PostgresConfiguration) -> BackendFacts {
        BackendFacts(
            tier: .secrets, name: "postgres",
            concurrencyGuarantee: "any thread, any process, any machine: each write one transaction under the "
                + "keyring row's lock, item and manifest together; every read checks the item against the manifest",
            durability: .durable,
            layout: [
                StorageLayoutEntry(
                    .server, configuration.redactedConnectionString + "#" + configuration.schema,
                    role: "PostgreSQL schema '\(configuration.schema)': keyring '\(keyring)' as a row of "
                        + "strata_keyrings (wrapped keys, sealed manifest) and rows of strata_secrets (sealed items)")
            ])
    }
}
