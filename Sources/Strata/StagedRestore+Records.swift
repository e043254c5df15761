import Foundation
import StrataBackup
import StrataCatalog
import StrataSQLite
import StrataSystem

// Restoring a capture of a store whose records tier was on PostgreSQL (see `Documentation/Backup.md`, "Capture and
// restore"). The export's JSON Lines are staged with the other files and converted into the staged store's SQLite
// records, so the staged store verifies as any other. For a PostgreSQL target they are also loaded into the
// target schema in one transaction, which is checked against the verified staged store and committed only then,
// just before the root is moved into place; the staged SQLite copy is removed and the staged configuration names
// the schema.
extension StagedRestore {
    /// Checks, before anything is written, that the capture's records can go where `target` says.
    /// - Returns: Whether the capture holds a PostgreSQL export.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for a PostgreSQL target and a capture without an
    ///   export, or a target that is not a `postgresql://` URL; `.corrupt` for a capture holding an export and
    ///   other records files.
    static func checkRecords(_ files: [CapturedFile], target: RestoreRecordsTarget) throws -> Bool {
        let prefix = PostgresCapture.folder + "/"
        let export = files.first { $0.tier == .records && $0.path.hasPrefix(prefix) }
        if export != nil, let other = files.first(where: { $0.tier == .records && !$0.path.hasPrefix(prefix) }) {
            throw StorageError(
                .corrupt, "the capture holds a PostgreSQL records export and another records file", tier: .records,
                path: other.path, recovery: "The snapshot is damaged or was made by hand; restore another one")
        }
        guard case .postgres(let url, _) = target else { return export != nil }
        guard PostgresConfiguration.isPostgresURL(url) else {
            throw StorageError(
                .invalidArgument, "the records URL is not a postgresql:// connection string", tier: .records,
                recovery: "Write it as postgresql://user@host:5432/database")
        }
        guard export != nil else {
            throw StorageError(
                .invalidArgument,
                "the capture's records are not on PostgreSQL: a records URL applies only to a capture of a store "
                    + "whose records tier was on PostgreSQL", tier: .records,
                recovery: "Restore without a records URL: the captured SQLite store is restored under the new root")
        }
        return true
    }

    /// Converts the staged export into the staged store's SQLite records (the restored configuration naming
    /// SQLite), loads it into PostgreSQL for a `.postgres` target (its transaction left open), and removes the
    /// export from the staging folder.
    /// - Returns: The PostgreSQL load, not committed, or `nil` for a `.sqlite` target.
    static func restoreRecordsExport(in staging: RestoreStaging, target: RestoreRecordsTarget) throws
        -> PostgresImport?
    {
        guard let records = try staging.folder.openDirectory(Tier.records.directoryName, create: false),
            let folder = try records.openDirectory("postgres", create: false)
        else { throw StorageError(.corrupt, "the capture's PostgreSQL export has no folder", tier: .records) }
        let export = try PostgresExport(folder: folder)
        let paths = try StoragePaths(root: staging.path)
        var configuration = try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        try convert(export, into: RecordStore(name: configuration.records.store, paths: paths))
        var load: PostgresImport?
        if case .postgres(let url, let schema) = target {
            load = try PostgresImport(export, into: PostgresConfiguration(connectionString: url, schema: schema))
        }
        records.removeTree("postgres")
        try recatalog(.records, in: staging, under: "sqlite")
        configuration.records.backend = "sqlite"
        configuration.records.url = nil
        configuration.records.urlVariable = nil
        try configuration.write(to: paths)
        try records.sync()
        return load
    }

    /// Writes the export into a new SQLite record store: schema version, collections, their records and indexes,
    /// and the key-value table (in transactions of 1,000 values).
    static func convert(_ export: PostgresExport, into store: RecordStore) throws {
        let engine = store.engine
        try engine.migrate { session in
            if export.schemaVersion != 0 { try session.setSchemaVersion(export.schemaVersion) }
            for collection in export.collections { try session.createCollection(collection) }
        }
        for collection in export.collections {
            _ = try engine.write { session in
                try export.forEachRecord(in: collection) { id, body in
                    _ = try session.write(collection, id: id, body: body, mode: .insert)
                }
                return ((), [collection])
            }
            for index in export.indexes(of: collection) { try engine.createIndex(index, in: collection) }
        }
        var values: [(key: String, value: [UInt8], modified: Double)] = []
        try export.forEachValue { key, value, modified in
            values.append((key, value, modified))
            if values.count == 1000 {
                try engine.keyValue.put(contentsOf: values)
                values.removeAll(keepingCapacity: true)
            }
        }
        try engine.keyValue.put(contentsOf: values)
    }

    /// Checks the PostgreSQL load against the verified staged store (the same keys in the key-value table, as
    /// many records in each collection), then makes the staged store use it: its configuration names the server
    /// and schema, and its SQLite copy is removed.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when the load and the staged store differ, or the
    ///   server's errors.
    static func adopt(_ load: PostgresImport, in staging: RestoreStaging, url: String, schema: String?) throws {
        let paths = try StoragePaths(root: staging.path)
        var configuration = try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        try compare(load, with: RecordStore(name: configuration.records.store, paths: paths))
        if let records = try staging.folder.openDirectory(Tier.records.directoryName, create: false) {
            for suffix in ["", "-wal", "-shm"] { try? records.unlink(configuration.records.store + ".sqlite" + suffix) }
            try records.sync()
        }
        try recatalog(.records, in: staging, under: "postgres")
        configuration.records.backend = "postgres"
        configuration.records.url = schema.map { urlNaming(schema: $0, in: url) } ?? url
        configuration.records.urlVariable = nil
        try configuration.write(to: paths)
    }

    /// Makes the staged catalog name `backend` for every key of `tier` (the catalog records which backend holds
    /// each key, and reads go by it).
    static func recatalog(_ tier: Tier, in staging: RestoreStaging, under backend: String) throws {
        let catalog = try StorageCatalog(root: staging.path)
        let moved = try catalog.locations().filter { $0.tier == tier && $0.backend != backend }.map { location in
            var placed = location
            placed.backend = backend
            return CatalogChange.set(placed)
        }
        if !moved.isEmpty { try catalog.record(moved, durable: true) }
    }

    /// Compares the load with the staged SQLite store it was converted alongside.
    private static func compare(_ load: PostgresImport, with store: RecordStore) throws {
        func differ(_ what: String) -> StorageError {
            StorageError(
                .corrupt, "the records loaded into PostgreSQL differ from the verified staged store: \(what)",
                tier: .records, path: load.location, recovery: "Nothing was committed; run the restore again")
        }
        let staged = try store.engine.keyValue.keys()
        let loaded = try load.keys()
        guard staged.count == loaded.count, staged.count == load.valueCount else { throw differ("the value count") }
        let loadedKeys = Set(loaded.map { ExactString($0) })
        if let missing = staged.first(where: { !loadedKeys.contains(ExactString($0)) }) {
            throw differ("the key '\(missing)' is missing")
        }
        for (collection, count) in load.recordCounts.sorted(by: { $0.key < $1.key }) {
            let inStage = try store.engine.read(snapshot: false) { try $0.count(collection, matching: .all) }
            guard inStage == count, try load.count(of: collection) == count else {
                throw differ("the record count of the collection '\(collection)'")
            }
        }
    }

    /// `url` with its `strata_schema=` parameter set to `schema`.
    static func urlNaming(schema: String, in url: String) -> String {
        let parts = url.split(separator: "?", maxSplits: 1).map(String.init)
        let kept = (parts.count == 2 ? parts[1].split(separator: "&").map(String.init) : []).filter {
            !$0.hasPrefix("strata_schema=")
        }
        return parts[0] + "?" + (kept + ["strata_schema=" + schema]).joined(separator: "&")
    }
}
