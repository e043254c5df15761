public import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A capture of a SQLite record store: never the live file (a checkpoint may be copying the WAL into it, and the
// WAL holds what the file does not), but a copy made by SQLite's online backup API into a private temporary file
// beside it (mode 0600, a reserved name), at one point in time. The copy is a whole database with no WAL: restored
// at the store's path, it opens as the store did when it was taken.
extension SQLiteRecordEngine: TierCapturing {
    /// The prefix of the temporary copies a capture makes beside the store.
    static let capturePrefix = StoragePaths.reservedPrefix + "capture-"

    /// Copies the database into `sink` through a consistent copy of it.
    /// - Returns: The file copied (SQLite leaves nothing out).
    /// - Throws: ``/StrataCore/StorageError`` when the database cannot be copied, or from the sink.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        let relative = try CapturedFile.relativePath(path, root: root, tier: .records)
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let copyPath = folder + "/" + Self.capturePrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? Sys.unlink(copyPath + suffix) }
        }
        do {
            let source = try SQLiteConnection(path: path, access: .queryOnly, configuration: configuration)
            let copy = try SQLiteConnection(
                path: copyPath, access: .readWrite(create: true), configuration: configuration)
            try source.backup(into: copy)
            copy.close()
            source.close()
        }
        let fd: Int32
        do {
            fd = try Sys.open(copyPath, O_RDONLY | O_NOFOLLOW)
        } catch {
            throw error.storageError("cannot open the copy of the database", tier: .records, path: copyPath)
        }
        defer { Sys.close(fd) }
        var report = CaptureReport()
        report.count(try sink.add(descriptor: fd, path: relative, tier: .records))
        return report
    }
}
