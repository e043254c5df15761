import StrataCore
import StrataPostgresClient
import StrataRecords
import Synchronization

// The key columns of indexed fields (format version 2, on a database that sorts text bytewise): the upgrade of a
// store of format version 1, and what every process knows of each collection's columns.
extension PostgresRecordEngine {
    /// Upgrades a store of format version 1 (expression indexes over `jsonb`), in the opening's transaction under
    /// the schema lock: on a database that sorts text bytewise, each indexed field gets its key column, filled
    /// from the client, and each index is made again on it (the expression index dropped). A process of an older
    /// build is then kept out by the version; one already running fails its inserts (the key columns are
    /// `NOT NULL`) instead of storing rows the indexes miss.
    static func upgrade(_ connection: PostgresConnection, _ configuration: PostgresConfiguration, keyed: Bool) throws {
        if keyed {
            let indexes = try connection.query(
                "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1::text AND tablename LIKE 'c\\_%' ORDER BY tablename, indexname",
                [.text(configuration.schema)], operation: "upgrade")
            for row in 0..<indexes.rowCount {
                let collection = String(indexes.text(row, 0).dropFirst(2))
                let description = PostgresExportDescription(
                    format: PostgresCapture.format, version: PostgresCapture.formatVersion,
                    schema: configuration.schema, meta: [:],
                    collections: [.init(name: collection, indexes: [indexes.text(row, 1): indexes.text(row, 2)])])
                // A field without a column of its own (see ``PostgresSession/addKeyColumn(_:to:on:)``) keeps its
                // expression index.
                for index in PostgresExport.indexes(of: collection, in: description)
                where try PostgresSession.addKeyColumn(index.field, to: collection, on: connection) {
                    try connection.execute(
                        "DROP INDEX \(index.name(in: collection)); "
                            + PostgresSession.createIndexSQL(index, in: collection, keyed: true),
                        operation: "upgrade", collection: collection)
                }
            }
        }
        try connection.execute(
            "UPDATE strata_meta SET value = '\(formatVersion)' WHERE key = 'format_version'", operation: "upgrade")
    }

    /// A collection's key columns, from the cache or else the catalog. A process that adds or drops one clears
    /// its cache; another process finds out when a write fails for a column it did not write (`23502`) or that
    /// is gone (`42703`), and runs the transaction again (``isKeyColumnMismatch(_:)``).
    func keyColumns(_ collection: String, on connection: PostgresConnection) throws -> PostgresKeyColumns {
        try collectionSQL(collection, on: connection).keys
    }

    /// A collection's key columns with the statements of its single-record writes, from the cache or else the
    /// catalog (see ``keyColumns(_:on:)``).
    func collectionSQL(_ collection: String, on connection: PostgresConnection) throws -> PostgresCollectionSQL {
        if let known = keyColumnCache.withLock({ $0[collection] }) { return known }
        let read = PostgresCollectionSQL(collection, keys: try PostgresKeyColumns.read(collection, on: connection))
        keyColumnCache.withLock { $0[collection] = read }
        return read
    }

    /// Forgets every collection's key columns.
    func forgetKeyColumns() { keyColumnCache.withLock { $0.removeAll() } }

    /// Whether `error` says that a statement did not write a key column the table has, or named one it no
    /// longer has, or that an `UPDATE`'s guard found other columns (``PostgresKeyColumns/unchangedCondition(_:)``):
    /// the key columns changed since they were read.
    static func isKeyColumnMismatch(_ error: StorageError) -> Bool {
        (error.sqlState == "23502" || error.sqlState == "42703") && error.message.contains("\"k__")
            || error.sqlState == "22P02" && error.message.contains(PostgresKeyColumns.changedMarker)
    }
}
