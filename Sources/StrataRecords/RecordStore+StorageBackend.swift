public import Foundation
public import StrataCore

/// The byte-level view of a store (its `strata_kv` table), so ``BackendRegistry`` can route values here.
extension RecordStore: StorageBackend {
    public var tier: Tier { .records }
    public var name: String { "sqlite" }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .records)
        try withWriter { connection in
            let statement = try connection.statement(
                "INSERT INTO strata_kv (key, value, modified) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, modified = excluded.modified",
                operation: "put")
            statement.bind([.text(key), .blob(value), .real(Date().timeIntervalSince1970)])
            try statement.run()
        }
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .records)
        return try read { connection in
            let statement = try connection.statement("SELECT value FROM strata_kv WHERE key = ?", operation: "get")
            statement.bind(.text(key), at: 1)
            return try statement.step() ? statement.data(0) : nil
        }
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .records)
        return try withWriter { connection in
            let statement = try connection.statement("DELETE FROM strata_kv WHERE key = ?", operation: "delete")
            statement.bind(.text(key), at: 1)
            try statement.run()
            return connection.changes > 0
        }
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .records)
        return try read { connection in
            let statement = try connection.statement("SELECT 1 FROM strata_kv WHERE key = ?", operation: "contains")
            statement.bind(.text(key), at: 1)
            return try statement.step()
        }
    }

    public func keys() throws -> [String] {
        try read { connection in
            let statement = try connection.statement("SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            var keys: [String] = []
            while try statement.step() { keys.append(statement.text(0)) }
            return keys.sorted()
        }
    }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .records)
        return try read { connection in
            let statement = try connection.statement(
                "SELECT length(value), modified FROM strata_kv WHERE key = ?", operation: "metadata")
            statement.bind(.text(key), at: 1)
            guard try statement.step() else { return nil }
            return StorageMetadata(
                key: key, size: Int(statement.int64(0)),
                modificationDate: Date(timeIntervalSince1970: statement.double(1)))
        }
    }
}
