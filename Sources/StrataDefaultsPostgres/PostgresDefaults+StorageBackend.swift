public import Foundation
public import StrataCore
public import StrataDefaults
public import StrataPostgres
import StrataPostgresClient

/// The byte-level view of the suite, as ``/StrataDefaults/DefaultsStore`` gives it: a value put here is stored as
/// plist `<data>`; reading a key that holds another type returns its byte form, and its metadata names that form's
/// content type, so a value can move to another tier and back as the same type.
extension PostgresDefaults: StorageBackend {
    public var tier: Tier { .defaults }
    public var name: String { "postgres" }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .defaults)
        try set(.data(value), forKey: key)
    }

    /// Stores `value`; a credential-looking key name is accepted when the descriptor
    /// ``/StrataCore/DataDescriptor/allowsSensitiveName``.
    public func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws {
        try StoragePaths.validateKey(key, for: .defaults)
        try set(.data(value), forKey: key, allowingSensitiveName: descriptor.allowsSensitiveName)
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .defaults)
        guard let stored = try object(forKey: key) else { return nil }
        do {
            return try stored.byteForm()
        } catch {
            throw error.attributed(tier: .defaults, key: key)
        }
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .defaults)
        return try removeObject(forKey: key)
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .defaults)
        return try object(forKey: key) != nil
    }

    public func keys() throws -> [String] { try allKeys() }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .defaults)
        guard let stored = try object(forKey: key) else { return nil }
        let modified = try pool.with { connection -> Double? in
            let result = try connection.query(
                PostgresDefaultsSQL.metadata, [.text(suite), .text(key)], operation: "metadata")
            return result.rowCount == 0 ? nil : Double(result.text(0, 1))
        }
        return StorageMetadata(
            key: key, size: try stored.byteForm().count,
            modificationDate: modified.map { Date(timeIntervalSince1970: $0) },
            contentType: stored.byteFormContentType)
    }

    /// The server's transactions; each set is committed before it returns.
    public var concurrencyGuarantee: String {
        Self.facts(suite: suite, configuration: configuration).concurrencyGuarantee
    }

    /// Every set is committed on the server before it returns.
    public var durability: Durability { .durable }

    /// The server's table.
    public var layout: [StorageLayoutEntry] { Self.facts(suite: suite, configuration: configuration).layout }

    /// The facts an instance on `suite` reports, without connecting.
    public static func facts(suite: String, configuration: PostgresConfiguration) -> BackendFacts {
        BackendFacts(
            tier: .defaults, name: "postgres",
            concurrencyGuarantee: "any thread, any process, any machine: each set and removal one transaction "
                + "under the suite's advisory lock, every read asks the server",
            durability: .durable,
            layout: [
                StorageLayoutEntry(
                    .server, configuration.redactedConnectionString + "#" + configuration.schema,
                    role: "PostgreSQL schema '\(configuration.schema)': suite '\(suite)' as rows of strata_defaults")
            ])
    }
}
