internal import CSQLite
import Foundation
import StrataCore
import StrataRecords

/// One SQLite connection: the only type that calls the SQLite C API. Not thread-safe by itself; the store
/// hands each connection to one thread at a time under a lock.
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements of the per-record paths, by collection, indexed by ``/StrataRecords/RecordStatement``: found without
    /// building or hashing their SQL.
    private var recordStatements: [String: [SQLiteStatement?]] = [:]
    /// The collection whose record statements were asked for last, and its entry of `recordStatements`.
    private var lastCollection: String?
    private var lastStatements: [SQLiteStatement?] = []

    /// A statement every collection has, run once per record.
    enum RecordStatement: Int, CaseIterable {
        case insert, upsert, update, get
    }

    /// How a connection opens its file.
    enum Access {
        /// Read and write, creating the file if `create`.
        case readWrite(create: Bool)
        /// Read only; SQLite may still create the `-wal` and `-shm` files of a WAL database, and reads the WAL.
        case readOnly
        /// Read only for a file already identified as a Strata store: opened read-write without create and made
        /// `query_only`, so that its last close removes the `-wal` and `-shm` files SQLite made, as a writer's does
        /// (a reader leaves the store as it found it). A file it may not write is opened ``readOnly``.
        case queryOnly
        /// Read only with `immutable=1`: no lock, no journal, no `-wal` or `-shm` is read or created, and nothing
        /// on disk is ever written. Sees the main file only. For identifying a file before trusting it.
        case immutable

        var isImmutable: Bool {
            if case .immutable = self { return true }
            return false
        }
    }

    /// Opens a database with the store's connection pragmas. Journal mode is the engine's business: it is set
    /// only once the file is known to be a Strata store (``SQLiteFileProbe``), never here.
    init(path: String, access: Access, configuration: RecordsConfiguration) throws {
        self.path = path
        let base = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_URI
        var flags = base
        switch access {
        case .readWrite(let create): flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        // A read-only connection cannot remove the `-wal` and `-shm` it made when it closes; a query-only one can.
        case .queryOnly: flags |= SQLITE_OPEN_READWRITE
        case .readOnly, .immutable: flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        var status = sqlite3_open_v2(Self.uri(path, immutable: access.isImmutable), &db, flags, nil)
        if case .queryOnly = access, status == SQLITE_READONLY || status == SQLITE_CANTOPEN || status == SQLITE_PERM {
            sqlite3_close_v2(db)
            db = nil
            status = sqlite3_open_v2(Self.uri(path, immutable: false), &db, base | SQLITE_OPEN_READONLY, nil)
        }
        handle = db
        guard status == SQLITE_OK, db != nil else {
            let error = self.error(status, "cannot open the database", operation: "open")
            sqlite3_close_v2(db)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(configuration.busyTimeoutMilliseconds))
        // Reading the schema is the first thing that touches the file: a foreign file fails here, typed.
        try execute("PRAGMA schema_version", operation: "open")
        if case .queryOnly = access { try execute("PRAGMA query_only=ON", operation: "open") }
        try execute("PRAGMA synchronous=\(configuration.sqliteSynchronous)", operation: "open")
        try execute("PRAGMA foreign_keys=OFF", operation: "open")
        try execute(
            "PRAGMA mmap_size=\(max(0, configuration.memoryMapBytes)); "
                + "PRAGMA cache_size=-\(max(1, configuration.pageCacheKibibytes))", operation: "open")
        // Deleted and replaced content is overwritten with zeros, in its page and in freed pages, so that a value
        // removed from the store (a record, a credential moved to secrets) does not stay in the file.
        try execute("PRAGMA secure_delete=ON", operation: "open")
    }

    /// A `file:` URI for `path`, so that `immutable=1` can be given: `%`, `?`, `#` and every byte outside a URI
    /// path's characters are percent-encoded (SQLite decodes them back to the same bytes).
    static func uri(_ path: String, immutable: Bool) -> String {
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        // An empty authority, so a path starting with "//" is not read as a host.
        let prefix = path.hasPrefix("/") ? "file://" : "file:"
        return prefix + escaped + (immutable ? "?immutable=1" : "")
    }

    deinit { close() }

    func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        for statement in recordStatements.values.joined() { statement?.finalize() }
        recordStatements.removeAll()
        lastCollection = nil
        lastStatements = []
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String, operation: String, collection: String? = nil) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw error(status, text ?? "a statement failed", operation: operation, collection: collection)
        }
    }

    /// A prepared statement, cached by its SQL text.
    func statement(_ sql: String, operation: String, collection: String? = nil) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else {
            throw error(status, "cannot prepare a statement", operation: operation, collection: collection)
        }
        let statement = SQLiteStatement(raw, connection: self, operation: operation, collection: collection)
        if statements.count > 256 {
            for old in statements.values { old.finalize() }
            statements.removeAll()
        }
        statements[sql] = statement
        return statement
    }

    /// The statement `kind` of `collection`; `sql` makes its SQL the first time. Unlike the other statements,
    /// these are not reset here: every use resets its statement when it is done with it
    /// (``SQLiteStatement/finish()``), so that a run of point gets or inserts resets each statement once.
    func statement(_ kind: RecordStatement, collection: String, operation: String, sql: () -> String) throws
        -> SQLiteStatement
    {
        // The collection used last is compared first (the same string: no hashing), as a run of inserts or gets
        // on one collection asks for it again and again.
        if collection == lastCollection, let cached = lastStatements[kind.rawValue] { return cached }
        if let cached = recordStatements[collection]?[kind.rawValue] {
            lastCollection = collection
            lastStatements = recordStatements[collection] ?? []
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql(), -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else {
            throw error(status, "cannot prepare a statement", operation: operation, collection: collection)
        }
        let statement = SQLiteStatement(raw, connection: self, operation: operation, collection: collection)
        recordStatements[collection, default: Array(repeating: nil, count: RecordStatement.allCases.count)][
            kind.rawValue] = statement
        lastCollection = collection
        lastStatements = recordStatements[collection] ?? []
        return statement
    }

    /// Resets every cached statement, so none keeps a read snapshot or lock open.
    func resetStatements() {
        for statement in statements.values { statement.reset() }
        for statement in recordStatements.values.joined() { statement?.reset() }
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// `PRAGMA data_version`: changes when another connection commits.
    func dataVersion() throws -> Int64 {
        let statement = try self.statement("PRAGMA data_version", operation: "observe")
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// `SQLITE_CANTOPEN_SYMLINK`, a macro Swift does not import: the path is a link and `SQLITE_OPEN_NOFOLLOW`
    /// was given.
    static let cantOpenSymlink = SQLITE_CANTOPEN | (6 << 8)

    /// Builds the error for a failed call, mapping SQLite's codes to Strata's.
    func error(_ status: Int32, _ message: String, operation: String, collection: String? = nil) -> StorageError {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? status
        let detail =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
        let primary = extended & 0xFF
        let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
        let code: StorageError.Code
        var recovery: String?
        switch primary {
        case SQLITE_NOTADB:
            code = .notAStore
            recovery = "The file is not a SQLite database; point the store at its own file (nothing was changed)"
        case SQLITE_CORRUPT:
            code = .corrupt
            recovery = "The database is damaged; restore it from a backup (nothing was changed)"
        case SQLITE_BUSY, SQLITE_LOCKED:
            code = .lockTimeout
            recovery = "Another connection or process held the database past the busy timeout; retry, or raise it"
        case SQLITE_FULL: code = .noSpace
        case SQLITE_IOERR where systemErrno != 0:
            // A failed write or read of the file: the system's reason decides (a full disk is no-space, as SQLite
            // itself reports only in some paths).
            let system = StorageError.system(systemErrno, "")
            code = system.code
            recovery = system.recovery
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH: code = .permissionDenied
        case SQLITE_CANTOPEN where extended == Self.cantOpenSymlink || systemErrno == ELOOP:
            code = .symbolicLink
            recovery = "The store never follows symbolic links; replace the link with the real file"
        case SQLITE_CANTOPEN: code = .io
        case SQLITE_CONSTRAINT:
            code = .constraintViolation
            recovery = "A unique field already has this value in another record"
        case SQLITE_TOOBIG: code = .tooLarge
        default: code = .io
        }
        var error = StorageError(
            code, "\(message): \(detail)", tier: .records, path: path, recovery: recovery)
        error.operation = operation
        error.collection = collection
        error.detail = SQLiteErrorDetail(extendedResultCode: extended)
        return error
    }
}

/// A prepared statement with typed binding and reading.
final class SQLiteStatement {
    private var raw: OpaquePointer?
    unowned let connection: SQLiteConnection
    let operation: String
    let collection: String?

    /// The bytes ``bindKey(_:at:)`` bound last, in storage of `keyCapacity`.
    private var keyBuffer: UnsafeMutablePointer<UInt8>?
    private var keyCapacity = 0

    init(_ raw: OpaquePointer, connection: SQLiteConnection, operation: String, collection: String?) {
        self.raw = raw
        self.connection = connection
        self.operation = operation
        self.collection = collection
    }

    func finalize() {
        sqlite3_finalize(raw)
        raw = nil
        keyBuffer?.deallocate()
        keyBuffer = nil
        keyCapacity = 0
    }

    deinit { keyBuffer?.deallocate() }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    func bind(_ values: [SQLiteValue]) {
        for (index, value) in values.enumerated() { bind(value, at: Int32(index + 1)) }
    }

    func bind(_ value: SQLiteValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(raw, index)
        case .integer(let number): sqlite3_bind_int64(raw, index, number)
        case .real(let number): sqlite3_bind_double(raw, index, number)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                _ = sqlite3_bind_text(
                    raw, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), strata_sqlite_transient())
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(raw, index, bytes.baseAddress, Int32(bytes.count), strata_sqlite_transient())
            }
        }
    }

    /// Binds `text` as text, copied into this statement's own buffer, which SQLite reads in place: no allocation
    /// by SQLite per binding (its own copy would be one), and the binding never outlives the bytes it points to,
    /// which live as long as the statement.
    func bindKey(_ text: String, at index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            if bytes.count > keyCapacity {
                keyBuffer?.deallocate()
                keyCapacity = Swift.max(bytes.count, 2 * keyCapacity, 32)
                keyBuffer = .allocate(capacity: keyCapacity)
            }
            if let base = bytes.baseAddress { keyBuffer!.update(from: base, count: bytes.count) }
            _ = sqlite3_bind_text(
                raw, index, UnsafeRawPointer(keyBuffer)?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        }
    }

    /// Binds UTF-8 bytes as text that SQLite reads in place, without copying them: the caller keeps them alive
    /// until it has stepped the statement and dropped the binding with ``unbind(_:)``.
    func bindTextInPlace(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        _ = sqlite3_bind_text(
            raw, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    /// Binds SQL `NULL`: drops what was bound at `index`.
    func unbind(_ index: Int32) { sqlite3_bind_null(raw, index) }

    /// Resets the statement, keeping its bindings: what a per-record statement's use ends with, so that no read
    /// snapshot or lock stays open. The next use binds every parameter again, and SQLite reuses the memory of the
    /// copies it made.
    func finish() { sqlite3_reset(raw) }

    /// Advances; `true` while there is a row.
    func step() throws -> Bool {
        let status = sqlite3_step(raw)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        let error = connection.error(status, "a statement failed", operation: operation, collection: collection)
        sqlite3_reset(raw)
        throw error
    }

    /// Steps to completion, ignoring rows.
    func run() throws {
        while try step() {}
    }

    var columnCount: Int { Int(sqlite3_column_count(raw)) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(raw, column) else { return "" }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Lends the column's bytes (text or blob) without copying.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let type = sqlite3_column_type(raw, column)
        let pointer =
            type == SQLITE_BLOB ? sqlite3_column_blob(raw, column) : UnsafeRawPointer(sqlite3_column_text(raw, column))
        let count = Int(sqlite3_column_bytes(raw, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    func data(_ column: Int32) -> Data { withBytes(column) { Data($0) } }

    /// The column as a value of whatever type SQLite holds.
    func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(raw, column) {
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_FLOAT: .real(double(column))
        case SQLITE_TEXT: .text(text(column))
        case SQLITE_BLOB: .blob(data(column))
        default: .null
        }
    }
}

/// A value bound to or read from SQL.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
