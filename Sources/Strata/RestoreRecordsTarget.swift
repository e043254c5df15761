/// Where a restore puts the records of a capture whose records tier was on PostgreSQL (its export,
/// `records/postgres/` in the capture). A capture of a store whose records are in SQLite restores its SQLite file
/// under the new root whatever this says, except that ``postgres(url:schema:)`` refuses it.
///
/// ```swift
/// try Storage.restore(from: snapshot, to: "/var/lib/notes-restored",
///                     records: .postgres(url: "postgresql://app@db.internal/notes", schema: "notes_restored"))
/// ```
public enum RestoreRecordsTarget: Sendable, Hashable {
    /// Into the restored root's SQLite store (`records/<store>.sqlite`, the store the captured configuration
    /// names, `main` by default): the export's collections, indexes, schema version and key-value table converted,
    /// and the restored configuration naming SQLite. No server is needed: the default.
    case sqlite
    /// Into a PostgreSQL schema, which must not exist or be empty: loaded in one transaction that commits only
    /// once the rest of the restored store is verified; the restored configuration names the server and schema
    /// (`url`, as given, with `strata_schema=`: a password in the URL is written into the file too).
    /// - Parameters:
    ///   - url: A `postgresql://` (or `postgres://`) connection string.
    ///   - schema: The schema. The default (`nil`) is the URL's `strata_schema=`, else `strata`.
    case postgres(url: String, schema: String? = nil)
}
