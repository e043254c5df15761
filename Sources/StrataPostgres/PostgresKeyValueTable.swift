import StrataCore
import StrataPostgresClient
import StrataRecords

/// The `strata_kv` table of a PostgreSQL store (values as `bytea`).
struct PostgresKeyValueTable: RecordKeyValueTable {
    let engine: PostgresRecordEngine

    private func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try engine.read(snapshot: false) { try body(($0 as! PostgresSession).connection) }
    }

    func put(_ value: [UInt8], for key: String, modified: Double) throws {
        _ = try run {
            try $0.query(
                "INSERT INTO strata_kv (key, value, modified) VALUES ($1::text, decode($2::text, 'hex'), $3::float8) ON CONFLICT (key) DO UPDATE SET value = excluded.value, modified = excluded.modified",
                [.text(key), .text(Hex.encode(value)), .text(String(modified))], operation: "put")
        }
    }

    func value(for key: String) throws -> [UInt8]? {
        try run { connection in
            let result = try connection.query(
                "SELECT encode(value, 'hex') FROM strata_kv WHERE key = $1::text", [.text(key)], operation: "get")
            guard result.rowCount > 0 else { return nil }
            guard let bytes = Hex.decode(result.text(0, 0)) else {
                throw StorageError(.corrupt, "the server sent a value that is not hex", tier: .records, key: key)
            }
            return bytes
        }
    }

    func remove(_ key: String) throws -> Bool {
        try run {
            try $0.query("DELETE FROM strata_kv WHERE key = $1::text", [.text(key)], operation: "delete").changedRows
                > 0
        }
    }

    /// The same as ``remove(_:)``: the server's files are not under the store root, and PostgreSQL keeps a
    /// deleted row's bytes in its heap until `VACUUM` and in its own write-ahead log; erasing them is the
    /// server administrator's business.
    func removeSecurely(_ key: String) throws -> Bool { try remove(key) }

    func keys() throws -> [String] {
        try run { connection in
            let result = try connection.query("SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            return (0..<result.rowCount).map { result.text($0, 0) }
        }
    }

    func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? {
        try run { connection in
            let result = try connection.query(
                "SELECT octet_length(value), modified FROM strata_kv WHERE key = $1::text", [.text(key)],
                operation: "metadata")
            guard result.rowCount > 0 else { return nil }
            return (Int(result.text(0, 0)) ?? 0, Double(result.text(0, 1)) ?? 0)
        }
    }
}
