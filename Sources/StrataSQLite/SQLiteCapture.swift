public import StrataCore
import StrataRecords
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steps of a SQLite record store's capture (``/StrataCore/TierCapture``): the database's state is held at the
/// store's instant by a read transaction, which takes a millisecond, and copied after the store's writers go on.
///
/// At the instant (``pin(into:)``): a connection of its own opens a read transaction and reads the schema, which
/// fixes the WAL snapshot it sees. After (``finish(into:)``): SQLite's online backup copies that snapshot — the
/// backup runs inside the connection's open read transaction instead of its own, so it copies the database as it
/// was at the instant while writers go on in WAL mode (a checkpoint cannot reach pages the read still needs) — into
/// a private temporary beside the store (`.strata-capture-…`, mode 0600), which is streamed to the sink and removed.
/// The copy is a whole database with no WAL: restored at the store's path, it opens as the store did at the instant.
public final class SQLiteCapture: TierCapture {
    private let engine: SQLiteRecordEngine
    private let relative: String
    private var source: SQLiteConnection?

    init(_ engine: SQLiteRecordEngine, root: String) throws {
        self.engine = engine
        relative = try CapturedFile.relativePath(engine.path, root: root, tier: .records)
    }

    deinit { source?.close() }

    /// Opens a read transaction on the database: the state ``finish(into:)`` copies.
    /// - Throws: ``/StrataCore/StorageError`` when the database cannot be opened or read.
    public func pin(into sink: any CaptureSink) throws -> CaptureReport {
        let connection = try SQLiteConnection(
            path: engine.path, access: .queryOnly, configuration: engine.configuration)
        // BEGIN alone takes no snapshot; the first read does.
        try connection.execute("BEGIN; SELECT count(*) FROM sqlite_master", operation: "capture")
        source = connection
        return CaptureReport()
    }

    /// Copies the database as ``pin(into:)`` held it into the sink, through a temporary copy.
    /// - Throws: ``/StrataCore/StorageError`` when the database cannot be copied, or from the sink.
    public func finish(into sink: any CaptureSink) throws -> CaptureReport {
        guard let source else { return CaptureReport() }
        defer {
            source.close()
            self.source = nil
        }
        let folder = String(engine.path[..<(engine.path.lastIndex(of: "/") ?? engine.path.startIndex)])
        let copyPath =
            folder + "/" + SQLiteRecordEngine.capturePrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? Sys.unlink(copyPath + suffix) }
        }
        do {
            let copy = try SQLiteConnection(
                path: copyPath, access: .readWrite(create: true), configuration: engine.configuration)
            try source.backup(into: copy)
            copy.close()
        }
        try? source.execute("COMMIT", operation: "capture")
        let fd: FileDescriptor
        do {
            fd = try Sys.open(copyPath, .readOnly, .noFollow)
        } catch {
            throw error.storageError("cannot open the copy of the database", tier: .records, path: copyPath)
        }
        defer { Sys.close(fd) }
        var report = CaptureReport()
        report.count(try sink.add(descriptor: fd, path: relative, tier: .records))
        return report
    }
}
