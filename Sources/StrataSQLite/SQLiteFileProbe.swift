import Foundation
import StrataCore
import StrataRecords
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Identifies a file before any connection that could change it is opened.
///
/// Opening a SQLite file read-write and setting `journal_mode=WAL` rewrites its header, and even a plain
/// read-only connection creates `-wal` and `-shm` files next to a WAL database. So a file is identified first
/// without changing anything on disk:
///
/// 1. The file and its `-wal`, `-shm` and `-journal` companions are looked at with `lstat`: a symbolic link is
///    refused (`.symbolicLink`).
/// 2. The 100-byte header is read with `O_RDONLY | O_NOFOLLOW`: no SQLite magic means `.notAStore`; a page size
///    SQLite cannot have, or a file that is not a whole number of pages or shorter than its header says, means
///    `.corrupt`.
/// 3. The schema is read through an `immutable=1` connection, which takes no lock and never creates or
///    writes a file: a `strata_meta` table means a Strata store (its format version is checked), no table at
///    all means an empty database, anything else is another program's database (`.notAStore`).
/// 4. Only when the main file holds no schema yet but a `-wal` file has content (a store whose first
///    checkpoint has not happened: a writer is running, or crashed) is a read-only connection opened, because
///    only it reads the WAL. It never writes the database or the WAL; it creates a `-shm` index only when the
///    writer that left the WAL is gone.
///
/// Only then does the engine open the file read-write and configure it.
enum SQLiteFileProbe {
    /// What a path holds.
    enum Kind: Equatable {
        /// Nothing: the store will be created.
        case absent
        /// An empty database (a zero-length file, or a SQLite file with no table and no application id or user
        /// version): the store's tables will be created in it.
        case empty
        /// A Strata record store whose format this code reads.
        case strata
    }

    static let magic = Array("SQLite format 3\0".utf8)

    /// Identifies `path` without changing anything on disk.
    /// - Throws: ``StorageError``: `.symbolicLink`, `.notAStore`, `.corrupt` or `.unsupportedVersion`.
    static func identify(_ path: String, configuration: RecordsConfiguration) throws -> Kind {
        guard let size = try regularFileSize(path) else { return .absent }
        var walHasContent = false
        for suffix in ["-wal", "-shm", "-journal"] {
            let companion = try regularFileSize(path + suffix)
            if suffix == "-wal", let companion, companion > 0 { walHasContent = true }
        }
        if size > 0 { try checkHeader(path, walHasContent: walHasContent) }
        // With frames in its write-ahead log the file alone may not be a database yet: a checkpoint that a full disk
        // cut short leaves pages in the file that point to pages only the log holds. Read it as SQLite reads it then.
        if walHasContent {
            return try withConnection(path, .readOnly, configuration: configuration) { try classify($0) }
        }
        guard size > 0 else { return .empty }
        return try withConnection(path, .immutable, configuration: configuration) { try classify($0) }
    }

    /// The size of the regular file at `path`, or `nil` when there is none.
    static func regularFileSize(_ path: String) throws -> Int64? {
        let info: stat
        do {
            info = try Sys.lstat(path)
        } catch let error where error.code == ENOENT {
            return nil
        } catch {
            throw error.storageError("cannot look at the database file", tier: .records, path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return Int64(info.st_size)
        case S_IFLNK:
            throw StorageError(
                .symbolicLink, "the database file or its companion is a symbolic link", tier: .records, path: path,
                recovery: "The store never follows symbolic links; replace the link with the real file")
        default:
            throw StorageError(
                .notAStore, "the path is not a regular file", tier: .records, path: path,
                recovery: "Point the store at its own file")
        }
    }

    /// Checks the SQLite header against the file's size, reading it without following a link.
    ///
    /// The size is taken after the header, through the same descriptor: a commit writes page 1 (with the new page
    /// count) before the pages past the file's end, so a size older than the header would find a store another
    /// process is growing shorter than its header says.
    static func checkHeader(_ path: String, walHasContent: Bool) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100, alignment: 1)
        defer { buffer.deallocate() }
        let count: Int
        let size: Int64
        do throws(Errno) {
            let fd = try Sys.open(path, .readOnly, .noFollow)
            defer { Sys.close(fd) }
            count = try Sys.pread(fd, buffer, at: 0)
            size = Int64(try Sys.fstat(fd).st_size)
        } catch {
            throw error.storageError("cannot read the database header", tier: .records, path: path)
        }
        let header = [UInt8](buffer.prefix(count))
        guard count == 100, header.starts(with: magic) else {
            throw StorageError(
                .notAStore, "the file is not a SQLite database", tier: .records, path: path,
                recovery: "Point the store at its own file (nothing was changed)")
        }
        func integer(_ offset: Int, _ width: Int) -> Int64 {
            header[offset..<(offset + width)].reduce(0) { $0 << 8 | Int64($1) }
        }
        let rawPageSize = integer(16, 2)
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw corrupt(path, "the header holds an impossible page size (\(rawPageSize))")
        }
        guard size % pageSize == 0 else {
            throw corrupt(path, "the file is not a whole number of \(pageSize)-byte pages (\(size) bytes): truncated")
        }
        // The header's page count is valid when the change counter matches "version valid for"; a WAL with
        // content may hold a checkpoint in progress, so the count is checked only without one.
        let pages = integer(28, 4)
        if !walHasContent, integer(24, 4) == integer(92, 4), pages > 0, size < pages * pageSize {
            // A rollback journal beside it means a commit in progress (page 1 is written before the pages it
            // adds) or one cut short, which SQLite rolls back when the file is opened: not a truncation.
            guard try regularFileSize(path + "-journal") == nil else { return }
            throw corrupt(path, "the file has \(size / pageSize) pages, its header says \(pages): truncated")
        }
    }

    static func corrupt(_ path: String, _ message: String) -> StorageError {
        StorageError(
            .corrupt, message, tier: .records, path: path,
            recovery: "The database is damaged; restore it from a backup (nothing was changed)")
    }

    static func withConnection<T>(
        _ path: String, _ access: SQLiteConnection.Access, configuration: RecordsConfiguration,
        _ body: (SQLiteConnection) throws -> T
    ) throws -> T {
        let connection = try remap(path) {
            try SQLiteConnection(path: path, access: access, configuration: configuration)
        }
        defer { connection.close() }
        return try remap(path) { try body(connection) }
    }

    /// A file that passed the magic check and that SQLite still calls "not a database" (`SQLITE_NOTADB`, the only
    /// `.notAStore` that carries an underlying code) has a damaged header.
    static func remap<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as StorageError where error.code == .notAStore && error.sqlite != nil {
            error.code = .corrupt
            error.recovery = "The database header is damaged; restore it from a backup (nothing was changed)"
            throw error
        }
    }

    /// What the connection's database is, from its schema: reads only.
    /// - Throws: `.unsupportedVersion` for a newer Strata store, `.notAStore` for another program's database.
    static func classify(_ connection: SQLiteConnection) throws -> Kind {
        let tables = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'", operation: "open")
        defer { tables.reset() }
        var names: Set<String> = []
        while try tables.step() { names.insert(tables.text(0)) }
        if names.contains("strata_meta") {
            let version = try connection.statement(
                "SELECT value FROM strata_meta WHERE key = 'format_version'", operation: "open")
            defer { version.reset() }
            let found = try version.step() ? Int(version.text(0)) ?? 0 : 0
            guard found <= SQLiteRecordEngine.formatVersion else {
                throw StorageError(
                    .unsupportedVersion,
                    "the store has format version \(found); this program reads up to \(SQLiteRecordEngine.formatVersion)",
                    tier: .records, path: connection.path, recovery: "Open it with the newer program that wrote it")
            }
            return .strata
        }
        let marks = try connection.statement("PRAGMA application_id", operation: "open")
        defer { marks.reset() }
        let applicationID = try marks.step() ? marks.int64(0) : 0
        let user = try connection.statement("PRAGMA user_version", operation: "open")
        defer { user.reset() }
        let userVersion = try user.step() ? user.int64(0) : 0
        guard names.isEmpty, applicationID == 0, userVersion == 0 else {
            throw StorageError(
                .notAStore, "the file is another program's SQLite database, not a Strata record store",
                tier: .records, path: connection.path, recovery: "Point the store at its own file (nothing was changed)"
            )
        }
        return .empty
    }
}
