/// `records/postgres/store.json` in a capture of a PostgreSQL record store (``PostgresCapture``).
struct PostgresExportDescription: Codable, Sendable {
    /// One collection: its name (table `c_<name>`) and its indexes' definitions by index name, as
    /// `pg_indexes.indexdef` gave them, and its key columns' fields by column name (none before format version 2
    /// of the store, whose indexes read the `jsonb` value).
    struct Collection: Codable, Sendable {
        var name: String
        var indexes: [String: String]
        var keys: [String: String]?
    }

    /// ``PostgresCapture/format``.
    var format: String
    var version: Int
    /// The schema the store was captured from.
    var schema: String
    /// The `strata_meta` table: `format`, `format_version`, `schema_version`.
    var meta: [String: String]
    var collections: [Collection]
}
