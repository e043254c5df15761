import Foundation
import StrataCore
import StrataRecords

/// The `strata_kv` table of a SQLite store.
struct SQLiteKeyValueTable: RecordKeyValueTable {
    let engine: SQLiteRecordEngine

    func put(_ value: [UInt8], for key: String, modified: Double) throws {
        try engine.withWriter { try Self.put(value, for: key, modified: modified, on: $0) }
    }

    /// One transaction for all of them.
    func put(contentsOf entries: [(key: String, value: [UInt8], modified: Double)]) throws {
        try engine.transaction(operation: "put") { connection in
            for entry in entries { try Self.put(entry.value, for: entry.key, modified: entry.modified, on: connection) }
        }
    }

    static func put(_ value: [UInt8], for key: String, modified: Double, on connection: SQLiteConnection) throws {
        let statement = try connection.statement(
            "INSERT INTO strata_kv (key, value, modified) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, modified = excluded.modified",
            operation: "put")
        statement.bind([.text(key), .blob(Data(value)), .real(modified)])
        try statement.run()
    }

    func value(for key: String) throws -> [UInt8]? {
        var value: [UInt8]?
        try engine.singleRead { connection in
            let statement = try connection.statement("SELECT value FROM strata_kv WHERE key = ?", operation: "get")
            defer { statement.reset() }
            statement.bind(.text(key), at: 1)
            if try statement.step() { value = statement.withBytes(0) { [UInt8]($0) } }
        }
        return value
    }

    func remove(_ key: String) throws -> Bool {
        try engine.withWriter { try Self.delete(key, on: $0) }
    }

    /// Deletes the row; every connection runs with `secure_delete` on, so the freed cells and pages are zeroed.
    /// Then the write-ahead log, which still holds the page images from before, is checkpointed into the database
    /// and truncated to nothing.
    func removeSecurely(_ key: String) throws -> Bool {
        try engine.withWriter { connection in
            let removed = try Self.delete(key, on: connection)
            let statement = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)", operation: "erase")
            guard try statement.step(), statement.int64(0) == 0 else {
                throw StorageError(
                    .timeout, "a reader kept the write-ahead log busy: the removed value's old pages are still in it",
                    tier: .records, key: key, path: connection.path + "-wal",
                    recovery: "Retry when no long read is running; the next open of the store retries it")
            }
            return removed
        }
    }

    static func delete(_ key: String, on connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.statement("DELETE FROM strata_kv WHERE key = ?", operation: "delete")
        statement.bind(.text(key), at: 1)
        try statement.run()
        return connection.changes > 0
    }

    func keys() throws -> [String] {
        try engine.read(snapshot: true) { session in
            let statement = try (session as! SQLiteSession).connection.statement(
                "SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            var keys: [String] = []
            while try statement.step() { keys.append(statement.text(0)) }
            return keys.sorted()
        }
    }

    func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? {
        var found: (size: Int, modified: Double)?
        try engine.singleRead { connection in
            let statement = try connection.statement(
                "SELECT length(value), modified FROM strata_kv WHERE key = ?", operation: "metadata")
            defer { statement.reset() }
            statement.bind(.text(key), at: 1)
            if try statement.step() { found = (Int(statement.int64(0)), statement.double(1)) }
        }
        return found
    }
}
