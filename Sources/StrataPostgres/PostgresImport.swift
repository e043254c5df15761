import Foundation
import StrataCore
import StrataPostgresClient
import StrataRecords

/// A capture's PostgreSQL export loaded into a new or empty schema in one transaction, held open until the caller
/// commits it (once the rest of the restored store is verified) or rolls it back.
///
/// The transaction takes the store's schema lock (the advisory lock ``PostgresRecordEngine`` takes to create or
/// migrate a store), checks that the schema holds nothing, creates it, the store's own tables and each collection's
/// table, streams the rows with binary `COPY`, and creates the Strata indexes after the rows are in. Until it
/// commits, no other session sees any of it; a process that dies meanwhile leaves nothing (the server rolls the
/// transaction back when the connection drops), and a store opened on the schema meanwhile waits for the lock.
package final class PostgresImport {
    /// Where the records go.
    package let configuration: PostgresConfiguration
    private let connection: PostgresConnection
    /// The rows loaded into each collection.
    package private(set) var recordCounts: [String: Int] = [:]
    /// The values loaded into the key-value table.
    package private(set) var valueCount = 0
    private var isFinished = false

    /// Connects and loads `export` into `configuration`'s schema, in a transaction left open.
    ///
    /// The records' bodies are not checked here (the server parses each as `jsonb`; the keys of indexed fields are
    /// computed from them): the caller has checked them, as a restore does by converting the export into the staged
    /// SQLite store first.
    /// - Throws: ``/StrataCore/StorageError``: `.conflict` naming the schema when it holds anything, the export's
    ///   `.corrupt`, or the server's errors (nothing is then left on the server).
    package init(_ export: PostgresExport, into configuration: PostgresConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        connection = try PostgresConnection(configuration.client)
        do {
            try connection.execute(
                "BEGIN; SELECT pg_advisory_xact_lock(\(configuration.schemaLockKey))", operation: "restore")
            try Self.refuseNonEmptySchema(configuration, on: connection)
            try connection.execute(
                "CREATE SCHEMA IF NOT EXISTS \(configuration.quotedSchema); \(PostgresRecordEngine.storeTablesSQL)",
                operation: "restore")
            if export.schemaVersion != 0 {
                try connection.execute(
                    "INSERT INTO strata_meta (key, value) VALUES ('schema_version', '\(export.schemaVersion)')",
                    operation: "restore")
            }
            try loadValues(export)
            let keyed = try PostgresRecordEngine.sortsTextBytewise(on: connection)
            for collection in export.collections {
                try connection.execute(
                    PostgresSession.createCollectionSQL(collection), operation: "restore", collection: collection)
                let indexes = export.indexes(of: collection)
                var fields: [Field] = []
                for field in indexes.map(\.field) where keyed && !fields.contains(field) {
                    try PostgresSession.addKeyColumn(field, to: collection, on: connection)
                    fields.append(field)
                }
                let keys = try PostgresKeyColumns.read(collection, on: connection)
                try loadRecords(export, collection, keys: keys)
                for index in indexes {
                    try connection.execute(
                        PostgresSession.createIndexSQL(index, in: collection, keyed: keys.fields.contains(index.field)),
                        operation: "restore",
                        collection: collection)
                }
            }
        } catch {
            rollback()
            throw error
        }
    }

    deinit { rollback() }

    /// Where the records go, without a password: `postgresql://user@host:port/database#schema`.
    package var location: String { configuration.redactedConnectionString + "#" + configuration.schema }

    /// Every key of the key-value table, as the transaction sees it.
    package func keys() throws -> [String] {
        let result = try connection.query("SELECT key FROM strata_kv ORDER BY key", operation: "restore")
        return (0..<result.rowCount).map { result.text($0, 0) }
    }

    /// How many records a collection holds, as the transaction sees it.
    package func count(of collection: String) throws -> Int {
        let result = try connection.query(
            "SELECT count(*) FROM c_\(collection)", operation: "restore", collection: collection)
        return Int(result.text(0, 0)) ?? -1
    }

    /// Commits the transaction: the records become visible, all at once.
    /// - Throws: ``/StrataCore/StorageError`` from the server; a lost connection leaves the outcome unknown
    ///   (`.connectionFailed` or `.timeout`).
    package func commit() throws {
        guard !isFinished else { return }
        isFinished = true
        defer { connection.close() }
        try connection.execute("COMMIT", operation: "restore")
    }

    /// Rolls the transaction back (nothing stays on the server) and closes the connection.
    package func rollback() {
        guard !isFinished else { return }
        isFinished = true
        connection.cancelCopy()
        if connection.isInTransaction && !connection.isBroken {
            try? connection.execute("ROLLBACK", operation: "rollback")
        }
        connection.close()
    }

    /// Refuses the schema of `configuration` when it holds any table, view, sequence, index or type (a new store on the server is written only into
    /// a new or empty schema), asked on a connection of its own.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` naming the schema, or the server's errors.
    package static func refuseNonEmptySchema(_ configuration: PostgresConfiguration) throws {
        try configuration.validate()
        let connection = try PostgresConnection(configuration.client)
        defer { connection.close() }
        try refuseNonEmptySchema(configuration, on: connection)
    }

    private static func refuseNonEmptySchema(_ configuration: PostgresConfiguration, on connection: PostgresConnection)
        throws
    {
        let found = try connection.query(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text",
            [.text(configuration.schema)], operation: "restore")
        let count = Int(found.text(0, 0)) ?? 0
        guard count == 0 else {
            throw StorageError(
                .conflict,
                "the schema '\(configuration.schema)' is not empty (it holds \(count) tables, indexes or other "
                    + "relations): a restore writes only into a new or empty schema",
                tier: .records, key: configuration.schema,
                path: configuration.redactedConnectionString + "#" + configuration.schema,
                recovery: "Name a new schema (strata_schema=NAME in the URL), or drop this one first "
                    + "(DROP SCHEMA \(configuration.schema) CASCADE, or PostgresRecordEngine.dropStore)")
        }
    }

    /// Streams the key-value table with `COPY`.
    private func loadValues(_ export: PostgresExport) throws {
        var stream = PostgresCopyStream(
            connection, sql: "COPY strata_kv (key, value, modified) FROM STDIN (FORMAT binary)", collection: "")
        try export.forEachValue { key, value, modified in
            guard !key.utf8.contains(0) else {
                throw PostgresExport.corrupt("kv.jsonl", "a key holds U+0000, which PostgreSQL text cannot hold")
            }
            PostgresBinaryCopy.appendRow(fields: 3, to: &stream.rows)
            PostgresBinaryCopy.appendField(key.utf8, to: &stream.rows)
            PostgresBinaryCopy.appendField(value, to: &stream.rows)
            PostgresBinaryCopy.appendDouble(modified, to: &stream.rows)
            valueCount += 1
            try stream.sendIfLarge()
        }
        try stream.end()
    }

    /// Streams one collection's records with `COPY`.
    private func loadRecords(_ export: PostgresExport, _ collection: String, keys: PostgresKeyColumns) throws {
        let sql = PostgresWriteBatch(collection: collection, mode: .insert, keys: keys, usesCopy: true).copySQL
        var stream = PostgresCopyStream(connection, sql: sql, collection: collection)
        var count = 0
        // The restore converted these files into SQLite first, checking every body; the server parses each again.
        try export.forEachRecord(in: collection, checksBodies: false) { id, body in
            try PostgresSession.checkID(id, collection: collection, operation: "restore")
            PostgresWriteBatch.appendCopyRow(
                id: id, body: body, keys: try keys.keys(of: body, id: id, in: collection), to: &stream.rows)
            count += 1
            try stream.sendIfLarge()
        }
        try stream.end()
        recordCounts[collection] = count
    }
}
