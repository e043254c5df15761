import Foundation
public import StrataCore
import StrataPostgresClient
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steps of a PostgreSQL record store's capture (``/StrataCore/TierCapture``): the store's schema held still by
/// a `REPEATABLE READ READ ONLY` transaction from the capture's instant, and exported after it, as JSON Lines.
///
/// At the instant (``pin(into:)``): the snapshot (`PostgresSnapshot`) — in a capture of a whole store, the one
/// every tier on the same server and schema reads (``pin(into:at:)``). After (``finish(into:)``): every file is
/// written from that snapshot into an unnamed temporary file (unlinked as soon as it is made; memory stays bounded by
/// one page of rows) and handed to the sink:
///
/// | path in the capture                    | content                                                              |
/// |----------------------------------------|----------------------------------------------------------------------|
/// | `records/postgres/store.json`          | the export's format, the schema, `strata_meta` (format and schema version), each collection with its index definitions and its key columns' fields |
/// | `records/postgres/kv.jsonl`            | the key-value table: `{"key":…,"value":"<hex>","modified":…}` per line |
/// | `records/postgres/c/<collection>.jsonl`| one record per line, by id: `{"id":"…","body":{…}}`                    |
public final class PostgresCapture: TierCapture {
    /// The folder of the export in a capture.
    public static let folder = "records/postgres"
    /// The export's format name and version, in `store.json`.
    public static let format = "strata-records-postgres-export"
    static let formatVersion = 1
    /// Rows fetched per statement.
    static let pageSize = 1000

    private let engine: PostgresRecordEngine
    private var steps: PostgresSnapshotCapture!

    init(_ engine: PostgresRecordEngine) {
        self.engine = engine
        steps = PostgresSnapshotCapture(engine.configuration.client, tier: .records) { [unowned self] in
            try self.export($0, into: $1)
        }
    }

    /// Takes the snapshot.
    /// - Throws: ``/StrataCore/StorageError`` when the server cannot be reached.
    public func pin(into sink: any CaptureSink) throws -> CaptureReport {
        try steps.pin(into: sink)
    }

    /// Takes the snapshot that `instant` holds for the server and schema.
    /// - Throws: ``/StrataCore/StorageError`` when the server cannot be reached.
    public func pin(into sink: any CaptureSink, at instant: CaptureInstant) throws -> CaptureReport {
        try steps.pin(into: sink, at: instant)
    }

    /// Exports the snapshot into the sink, then lets it go.
    /// - Throws: ``/StrataCore/StorageError`` when the server fails, a temporary file cannot be written, or from the
    ///   sink.
    public func finish(into sink: any CaptureSink) throws -> CaptureReport {
        try steps.finish(into: sink)
    }

    /// Every file of the export, read on `connection` (in the snapshot).
    private func export(_ connection: PostgresConnection, into sink: any CaptureSink) throws -> CaptureReport {
        let tables = try connection.query(
            #"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relkind = 'r' AND c.relname LIKE 'c\_%' ORDER BY c.relname"#,
            [.text(engine.configuration.schema)], operation: "capture")
        let collections = (0..<tables.rowCount).map { String(tables.text($0, 0).dropFirst(2)) }
        var report = CaptureReport()
        report.count(
            try export(Self.folder + "/store.json", into: sink) { write in
                try describe(connection, collections: collections, write)
            })
        report.count(
            try export(Self.folder + "/kv.jsonl", into: sink) { write in
                try page(
                    connection,
                    "SELECT key, json_build_object('key', key, 'value', encode(value, 'hex'), 'modified', modified)::text FROM strata_kv WHERE key > $1::text ORDER BY key LIMIT \(Self.pageSize)",
                    write)
            })
        for name in collections {
            report.count(
                try export(Self.folder + "/c/" + name + ".jsonl", into: sink) { write in
                    try page(
                        connection,
                        "SELECT id, json_build_object('id', id, 'body', body)::text FROM \"c_\(name)\" WHERE id > $1::text ORDER BY id LIMIT \(Self.pageSize)",
                        write, collection: name)
                })
        }
        return report
    }

    /// `store.json`: what a restore needs besides the rows.
    private func describe(
        _ connection: PostgresConnection, collections: [String], _ write: ([UInt8]) throws -> Void
    ) throws {
        let meta = try connection.query("SELECT key, value FROM strata_meta ORDER BY key", operation: "capture")
        let indexes = try connection.query(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1::text ORDER BY tablename, indexname",
            [.text(engine.configuration.schema)], operation: "capture")
        var definitions: [String: [String: String]] = [:]
        for row in 0..<indexes.rowCount where indexes.text(row, 0).hasPrefix("c_") {
            definitions[String(indexes.text(row, 0).dropFirst(2)), default: [:]][indexes.text(row, 1)] =
                indexes.text(row, 2)
        }
        let keys = try connection.query(
            #"SELECT c.relname, a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attname LIKE 'k\_\_%'"#,
            [.text(engine.configuration.schema)], operation: "capture")
        var fields: [String: [String: String]] = [:]
        for row in 0..<keys.rowCount where keys.text(row, 0).hasPrefix("c_") {
            fields[String(keys.text(row, 0).dropFirst(2)), default: [:]][keys.text(row, 1)] = keys.text(row, 2)
        }
        let description = PostgresExportDescription(
            format: Self.format, version: Self.formatVersion, schema: engine.configuration.schema,
            meta: Dictionary(uniqueKeysWithValues: (0..<meta.rowCount).map { (meta.text($0, 0), meta.text($0, 1)) }),
            collections: collections.map { .init(name: $0, indexes: definitions[$0] ?? [:], keys: fields[$0]) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try write(Array(try encoder.encode(description)))
    }

    /// Writes the rows of `sql` (its key in column 0, its JSON line in column 1) page by page, after the key `$1`.
    private func page(
        _ connection: PostgresConnection, _ sql: String, _ write: ([UInt8]) throws -> Void, collection: String? = nil
    ) throws {
        var after = ""
        while true {
            let rows = try connection.query(sql, [.text(after)], operation: "capture", collection: collection)
            var bytes: [UInt8] = []
            for row in 0..<rows.rowCount {
                rows.withBytes(row, 1) { bytes += $0 }
                bytes.append(0x0A)
            }
            try write(bytes)
            guard rows.rowCount == Self.pageSize else { return }
            after = rows.text(rows.rowCount - 1, 0)
        }
    }

    /// Writes one file of the export into an unnamed temporary file and hands it to the sink.
    private func export(
        _ path: String, into sink: any CaptureSink, _ body: (([UInt8]) throws -> Void) throws -> Void
    ) throws -> CapturedFile {
        let folder = FileManager.default.temporaryDirectory.path
        let name =
            folder + "/" + StoragePaths.reservedPrefix + "capture-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try Sys.open(name, .readWrite, [.create, .exclusive, .noFollow])
            try Sys.unlink(name)
        } catch {
            throw error.storageError("cannot make a temporary file for the export", tier: .records, path: name)
        }
        defer { Sys.close(fd) }
        try body { bytes in
            do throws(Errno) {
                try Sys.writeAll(fd, Data(bytes), path: name)
            } catch {
                throw error.storageError("cannot write the export", tier: .records, path: path)
            }
        }
        return try sink.add(descriptor: fd, path: path, tier: .records)
    }
}
