import StrataCore
import StrataPostgresClient
import StrataRecords

/// The `strata_kv` table of a PostgreSQL store (values as `bytea`).
package struct PostgresKeyValueTable: RecordKeyValueTable {
    let engine: PostgresRecordEngine

    private func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try engine.read(snapshot: false) { try body(($0 as! PostgresSession).connection) }
    }

    package func put(_ value: [UInt8], for key: String, modified: Double) throws {
        let parameters: [PostgresParameter] = [.text(key), .text(Hex.encode(value)), .text(String(modified))]
        guard let fence = fence() else {
            _ = try run { try $0.query(Self.upsert, parameters, operation: "put") }
            return
        }
        let written = try run {
            try $0.query(Self.fencedUpsert, parameters + fence.parameters, operation: "put").rowCount > 0
        }
        guard written else { throw Self.lockLost(key, "put") }
    }

    static let upsert =
        "INSERT INTO strata_kv (key, value, modified) VALUES ($1::text, decode($2::text, 'hex'), $3::float8) ON CONFLICT (key) DO UPDATE SET value = excluded.value, modified = excluded.modified"

    /// ``upsert``, made only while the key's lock is held (``/StrataPostgresClient/PostgresFence``).
    static let fencedUpsert = """
        WITH \(PostgresFence.check(from: 4))
        INSERT INTO strata_kv (key, value, modified)
            SELECT $1::text, decode($2::text, 'hex'), $3::float8 FROM fence WHERE held
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, modified = excluded.modified
            RETURNING 1
        """

    package func value(for key: String) throws -> [UInt8]? {
        try run { connection in
            let result = try connection.query(
                "SELECT \(Self.value(ofKeyIn: "$1"))", [.text(key)], operation: "get")
            return result.isNull(0, 0) ? nil : try Self.value(result.text(0, 0), key: key)
        }
    }

    /// An expression that is the value under the key in the text parameter `parameter` (`$1`), as the server sends
    /// it (``value(_:key:)`` reads it), or `NULL`: for a statement on a connection whose search path is the store's
    /// schema, such as another table's lookup that reads the value in the same step.
    package static func value(ofKeyIn parameter: String) -> String {
        "(SELECT encode(value, 'hex') FROM strata_kv WHERE key = \(parameter)::text)"
    }

    /// The bytes of a value as ``value(ofKeyIn:)`` has the server send it.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming `key` when they are not what it sends.
    package static func value(_ text: String, key: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(text) else {
            throw StorageError(.corrupt, "the server sent a value that is not hex", tier: .records, key: key)
        }
        return bytes
    }

    package func remove(_ key: String) throws -> Bool {
        guard let fence = fence() else {
            return try run {
                try $0.query("DELETE FROM strata_kv WHERE key = $1::text", [.text(key)], operation: "delete")
                    .changedRows > 0
            }
        }
        let (held, removed) = try run { connection in
            let result = try connection.query(
                Self.fencedDelete, [.text(key)] + fence.parameters, operation: "delete")
            return (result.text(0, 0) == "t", result.text(0, 1) != "0")
        }
        guard held else { throw Self.lockLost(key, "delete") }
        return removed
    }

    /// A delete made only while the key's lock is held: whether it was, and how many rows went.
    static let fencedDelete = """
        WITH \(PostgresFence.check(from: 2)),
        gone AS (DELETE FROM strata_kv WHERE key = $1::text AND (SELECT held FROM fence) RETURNING 1)
        SELECT (SELECT held FROM fence), (SELECT count(*) FROM gone)
        """

    /// The fence of the key's lock the calling thread holds in a catalog on this store's server, if it holds one:
    /// then each write checks, in its own statement, that the lock is still held.
    private func fence() -> PostgresFence? {
        guard let fence = PostgresFence.current(), fence.server == engine.configuration.connectionString else {
            return nil
        }
        return fence
    }

    /// The refusal of a write whose key's lock the calling thread lost: nothing was written.
    static func lockLost(_ key: String, _ operation: String) -> StorageError {
        PostgresFence.lockLost(key, operation, tier: .records)
    }

    /// The same as ``remove(_:)``: the server's files are not under the store root, and PostgreSQL keeps a
    /// deleted row's bytes in its heap until `VACUUM` and in its own write-ahead log; erasing them is the
    /// server administrator's business.
    package func removeSecurely(_ key: String) throws -> Bool { try remove(key) }

    package func keys() throws -> [String] {
        try run { connection in
            let result = try connection.query("SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            return (0..<result.rowCount).map { result.text($0, 0) }
        }
    }

    package func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? {
        try run { connection in
            let result = try connection.query(
                "SELECT octet_length(value), modified FROM strata_kv WHERE key = $1::text", [.text(key)],
                operation: "metadata")
            guard result.rowCount > 0 else { return nil }
            return (Int(result.text(0, 0)) ?? 0, Double(result.text(0, 1)) ?? 0)
        }
    }
}
