import Foundation
public import StrataCore
public import StrataRecords
import StrataSystem
import Synchronization

/// The built-in engine: one SQLite file in WAL mode.
///
/// One writer connection serves every write (SQLite allows one writer at a time anyway; `BEGIN IMMEDIATE`
/// takes the file's write lock first, so writers in several processes queue instead of failing), and a pool of
/// read-only connections serves reads concurrently. A connection waits up to
/// ``/StrataRecords/RecordsConfiguration/busyTimeoutMilliseconds`` for another process's lock.
public final class SQLiteRecordEngine: RecordEngine {
    /// The database file.
    public let path: String
    /// How the database was opened.
    public let configuration: RecordsConfiguration
    /// `sqlite`.
    public var name: String { "sqlite" }
    /// The database file.
    public var location: String { path }
    /// SQLite's locking, in WAL mode.
    public var concurrencyGuarantee: String { facts.concurrencyGuarantee }
    /// ``/StrataRecords/RecordsConfiguration/durability``, as SQLite applies it (`FULL` or `NORMAL`).
    public var durability: Durability { facts.durability }
    /// The database file and the two files of WAL mode beside it.
    public var layout: [StorageLayoutEntry] { facts.layout }
    /// The facts of this engine.
    public var facts: BackendFacts { Self.facts(path: path, configuration: configuration) }

    /// The facts an engine opened on the file at `path` reports, without opening it.
    public static func facts(path: String, configuration: RecordsConfiguration) -> BackendFacts {
        BackendFacts(
            tier: .records, name: "sqlite",
            concurrencyGuarantee: "any thread, any process on this machine: concurrent readers, one writer, SQLite's "
                + "file locking (WAL) with a busy timeout of \(configuration.busyTimeoutMilliseconds) ms",
            durability: configuration.sqliteSynchronous == "FULL" ? .durable : .atomicOnly,
            layout: [
                StorageLayoutEntry(.file, path, role: "the database (SQLite, WAL mode)"),
                StorageLayoutEntry(.file, path + "-wal", role: "write-ahead log (while the database is open)"),
                StorageLayoutEntry(.file, path + "-shm", role: "shared-memory index of the log"),
            ])
    }

    /// The format of the store's own tables; a file with a newer one is refused.
    static let formatVersion = 1

    // Every write runs under this lock, so writes in this process are serialized.
    let writer: Mutex<ConnectionBox>
    let readers: ReaderPool

    /// Opens (creating if needed) the database file and checks that it is a Strata record store.
    ///
    /// The file is identified before anything can change it (`SQLiteFileProbe`): a file that is not a Strata
    /// store is refused byte-for-byte unchanged, with no `-wal`, `-shm` or `-journal` file created. Only a
    /// Strata store, an empty database or a new file is then opened read-write and switched to WAL mode.
    /// With ``/StrataRecords/RecordsConfiguration/isReadOnly`` nothing is created or configured at all.
    /// - Throws: ``/StrataCore/StorageError``: `.notAStore` for a file that is not SQLite or is another program's
    ///   SQLite database, `.corrupt` for a damaged store, `.unsupportedVersion` for a store format newer than this
    ///   code, `.symbolicLink` when the file or its `-wal`/`-shm`/`-journal` is a symbolic link, `.notFound` for a
    ///   read-only open of a missing file.
    public init(path: String, configuration: RecordsConfiguration = RecordsConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        let kind = try SQLiteFileProbe.identify(path, configuration: configuration)
        let connection: SQLiteConnection
        if configuration.isReadOnly {
            guard kind != .absent else {
                throw StorageError(
                    .notFound, "there is no record store at this path", tier: .records, path: path,
                    recovery: "Check the path; a read-only open never creates a store")
            }
            connection = try SQLiteConnection(path: path, access: .queryOnly, configuration: configuration)
        } else {
            if kind == .absent { try Self.createWhole(path, configuration: configuration) }
            connection = try SQLiteConnection(
                path: path, access: .readWrite(create: true), configuration: configuration)
            try Self.prepareSchema(connection)
        }
        // No statement may keep a read snapshot open on the writer: a later BEGIN IMMEDIATE would fail at once.
        connection.resetStatements()
        writer = Mutex(ConnectionBox(connection))
        readers = ReaderPool(path: path, size: max(1, configuration.readerCount), configuration: configuration)
    }

    /// Creates a new store whole under a temporary name beside `path` — its tables written, the file switched to WAL
    /// mode and checkpointed, the connection closed — and links it into place. `link(2)` never replaces a file: when
    /// another process put a store there first, that one is used. So no process meets a store of ours half created,
    /// or still in rollback-journal mode, where its commit and another's switch to WAL wait on each other's locks
    /// (four processes creating one store at once could run out the busy timeout so).
    static func createWhole(_ path: String, configuration: RecordsConfiguration) throws {
        let temporary = path + ".creating-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        defer {
            for leftover in [temporary, temporary + "-wal", temporary + "-shm", temporary + "-journal"] {
                try? Sys.unlink(leftover)
            }
        }
        try createFile(temporary, permissions: (configuration.filePermissions ?? 0o600) & 0o777)
        do {
            let connection = try SQLiteConnection(
                path: temporary, access: .readWrite(create: false), configuration: configuration)
            defer { connection.close() }
            try prepareSchema(connection)
        } catch let error as StorageError {
            // The temporary name means nothing to the caller: name the store being created.
            var error = error
            error.path = path
            throw error
        }
        let here = FileDescriptor(rawValue: AT_FDCWD)
        do throws(Errno) {
            try Sys.linkat(here, temporary, here, path, path: path)
        } catch  where error.code == EEXIST {
            return  // Another process created the store first.
        } catch {
            throw error.storageError("cannot put the new record store in place", tier: .records, path: path)
        }
    }

    /// Creates the empty database file with `permissions` before SQLite opens it (SQLite would create it 0644 less
    /// the umask, and gives the `-wal` and `-shm` files the database's mode). A file another process created in the
    /// meantime is left as it is.
    static func createFile(_ path: String, permissions: Int) throws {
        do throws(Errno) {
            let fd = try Sys.open(
                path, .writeOnly, [.create, .exclusive, .noFollow], permissions: FilePermissions(permissions))
            defer { Sys.close(fd) }
            try Sys.fchmod(fd, FilePermissions(permissions))  // The umask may have taken bits away.
        } catch  where error.code == EEXIST {
            return
        } catch {
            throw error.storageError("cannot create the record store's database file", tier: .records, path: path)
        }
    }

    /// Checks that the database is still a Strata store or empty (another process may have changed it since it was
    /// identified), creates Strata's tables in an empty one, and only then switches it to WAL mode.
    ///
    /// A store that has its tables is checked in a read transaction, which in WAL mode waits for no writer, so an
    /// open does not queue behind the processes writing the store (under steady writes it could wait out the busy
    /// timeout). Only an empty database is checked again, and filled, under the write lock.
    static func prepareSchema(_ connection: SQLiteConnection) throws {
        var created = false
        if try classify(connection, begin: "BEGIN DEFERRED", fill: { _ in false }) == .empty {
            // Another process may fill it first: look again under the write lock.
            created =
                try classify(connection, begin: "BEGIN IMMEDIATE") { kind in
                    guard kind == .empty else { return false }
                    try connection.execute(
                        """
                        CREATE TABLE strata_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                        INSERT INTO strata_meta (key, value) VALUES ('format', 'strata-records'), ('format_version', '\(formatVersion)');
                        CREATE TABLE strata_kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, modified REAL NOT NULL) WITHOUT ROWID;
                        """, operation: "create")
                    return true
                } == .empty
        }
        try connection.execute("PRAGMA journal_mode=WAL", operation: "open")
        // A new store's tables go into the main file at once, so that the file identifies itself even before
        // the first automatic checkpoint, without a reader having to look into its WAL.
        if created { try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)", operation: "create") }
    }

    /// Classifies the database in a transaction begun with `begin`, then lets `fill` write in it: the transaction
    /// commits when `fill` returns `true`, and is rolled back otherwise (or when anything fails). A transaction that
    /// only read is rolled back, not committed: SQLite's write transaction rewrites page 1 whenever the page count in
    /// the header is not the file's (a header damaged by another program), and a store found damaged later must be
    /// left as it was found.
    private static func classify(
        _ connection: SQLiteConnection, begin: String, fill: (SQLiteFileProbe.Kind) throws -> Bool
    ) throws -> SQLiteFileProbe.Kind {
        try connection.execute(begin, operation: "open")
        do {
            let kind = try SQLiteFileProbe.classify(connection)
            let wrote = try fill(kind)
            connection.resetStatements()
            try connection.execute(wrote ? "COMMIT" : "ROLLBACK", operation: "open")
            return kind
        } catch {
            connection.resetStatements()
            if connection.isInTransaction { try? connection.execute("ROLLBACK", operation: "rollback") }
            throw error
        }
    }

    // MARK: Connections

    /// Runs `body` on the writer connection, outside any transaction of ours.
    func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { box in
            defer { box.connection.resetStatements() }
            return try body(box.connection)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the writer.
    func transaction<T>(operation: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { box in
            let connection = box.connection
            try connection.execute("BEGIN IMMEDIATE", operation: operation)
            do {
                let result = try body(connection)
                connection.resetStatements()
                try connection.execute("COMMIT", operation: operation)
                return result
            } catch {
                connection.resetStatements()
                if connection.isInTransaction { try? connection.execute("ROLLBACK", operation: "rollback") }
                throw error
            }
        }
    }

    public func write<T>(_ body: (any RecordSession) throws -> (T, Set<String>)) throws -> (T, Set<String>) {
        try transaction(operation: "commit") { try body(SQLiteSession(connection: $0)) }
    }

    public func read<T>(snapshot: Bool, _ body: (any RecordSession) throws -> T) throws -> T {
        try readers.with { connection in
            // Without a snapshot, each session method resets the statement it used.
            guard snapshot else { return try body(SQLiteSession(connection: connection)) }
            try connection.execute("BEGIN", operation: "read")
            defer {
                connection.resetStatements()
                try? connection.execute("COMMIT", operation: "read")
            }
            return try body(SQLiteSession(connection: connection))
        }
    }

    /// A point get reads on the writer connection when no write holds it, and on a reader otherwise.
    ///
    /// The writer's page cache already holds the pages this process wrote, and its own commits never drop it,
    /// while a reader's cache starts empty and SQLite drops the whole of it at the reader's next read after any
    /// other connection (the writer included) has committed: a get on a reader then reads its pages again with
    /// `read` calls, into a second copy of them. The row is copied out and decoded after the writer is given
    /// back, so a write waits for SQLite's part of a get only, and a record type's `init(from:)` may use the
    /// store (even write to it) as it may on a reader.
    public func readBody(_ collection: String, id: String, _ use: (UnsafeRawBufferPointer) throws -> Void)
        throws -> Bool
    {
        switch try withBodyFromWriter(collection, id: id, use) {
        case Self.writerBusy:
            return try readers.with { try SQLiteSession(connection: $0).body(collection, id: id, use) != nil }
        case Self.noRecord: return false
        default: return true
        }
    }

    /// Lends `use` a copy of the body of the record with this id, read on the writer connection, once the writer
    /// is given back: in stack storage up to 1 KiB, in an array past that. Returns the body's length,
    /// ``noRecord`` (`use` not called) or ``writerBusy`` when a write holds the writer. Not generic, so that the
    /// stack storage costs no run-time metadata lookup.
    private func withBodyFromWriter(
        _ collection: String, id: String, _ use: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        try withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 8) { inline in
            var large: [UInt8] = []
            let count = try copyFromWriter(collection, id: id, into: inline, large: &large)
            switch count {
            case Self.writerBusy, Self.noRecord: break
            case ...inline.count: try use(UnsafeRawBufferPointer(rebasing: inline[..<count]))
            default: try large.withUnsafeBytes(use)
            }
            return count
        }
    }

    /// Copies the body of the record with this id, read on the writer connection, into `inline`, or into `large`
    /// when it is longer. Returns its length, ``noRecord`` when there is no such record, or ``writerBusy`` when a
    /// write holds the writer. Not generic, and without an optional of an optional: either would cost a run-time
    /// metadata lookup on each get.
    private func copyFromWriter(
        _ collection: String, id: String, into inline: UnsafeMutableRawBufferPointer, large: inout [UInt8]
    ) throws -> Int {
        try onFreeWriter { connection in
            try SQLiteSession(connection: connection).body(collection, id: id) { row in
                if row.count > inline.count {
                    large = Array(row)
                } else if let base = row.baseAddress {
                    inline.baseAddress!.copyMemory(from: base, byteCount: row.count)
                }
                return row.count
            } ?? Self.noRecord
        }
    }

    /// Runs `read` on the writer connection when no write holds it and returns what it returns, or ``writerBusy``
    /// without running it. Not generic, like ``copyFromWriter(_:id:into:large:)``.
    private func onFreeWriter(_ read: (SQLiteConnection) throws -> Int) throws -> Int {
        var failure: (any Error)?
        let result =
            writer.withLockIfAvailable { box -> Int in
                do {
                    return try read(box.connection)
                } catch {
                    failure = error
                    return Self.noRecord
                }
            } ?? Self.writerBusy
        if let failure { throw failure }
        return result
    }

    /// Runs `read`, one statement that copies what it reads out (SQLite makes a single statement consistent by
    /// itself), on the writer connection when no write holds it, for the reasons ``readBody(_:id:_:)`` gives, and
    /// on a reader otherwise. `read` runs holding the writer: it must not call back into the store.
    func singleRead(_ read: (SQLiteConnection) throws -> Void) throws {
        let onWriter = try onFreeWriter { connection in
            try read(connection)
            return 0
        }
        if onWriter == Self.writerBusy { try readers.with(read) }
    }

    /// What ``copyFromWriter(_:id:into:large:)`` returns when there is no such record.
    private static var noRecord: Int { -1 }
    /// What ``copyFromWriter(_:id:into:large:)`` returns when a write holds the writer.
    private static var writerBusy: Int { -2 }

    public func migrate(_ body: (any RecordSession) throws -> Void) throws {
        try transaction(operation: "migrate") { try body(SQLiteSession(connection: $0)) }
    }

    public func schemaVersion() throws -> Int {
        try withWriter { try SQLiteSession(connection: $0).schemaVersion() }
    }

    public func collectionNames() throws -> Set<String> {
        try withWriter { connection in
            let statement = try connection.statement(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'",
                operation: "open")
            var names: Set<String> = []
            while try statement.step() { names.insert(String(statement.text(0).dropFirst(2))) }
            return names
        }
    }

    public func createCollection(_ name: String) throws {
        try withWriter { try SQLiteSession(connection: $0).createCollection(name) }
    }

    public func createIndex(_ index: Index, in collection: String) throws {
        try withWriter { try SQLiteSession(connection: $0).createIndex(index, in: collection) }
    }

    public func verify() throws -> [String] {
        try withWriter { connection in
            let statement = try connection.statement("PRAGMA integrity_check", operation: "verify")
            var problems: [String] = []
            do {
                while try statement.step() {
                    let line = statement.text(0)
                    if line != "ok" { problems.append(line) }
                }
            } catch let error as StorageError where error.code == .corrupt {
                // Damage bad enough to stop the check itself is a finding, not a failure to check.
                problems.append(error.description)
            }
            return problems
        }
    }

    public func queryPlan(for query: Query, in collection: String) throws -> [String] {
        var parameters: [SQLiteValue] = []
        let sql = SQLiteSession.selectSQL(query, collection: collection, parameters: &parameters)
        return try read(snapshot: true) { session in
            let connection = (session as! SQLiteSession).connection
            let statement = try connection.statement(
                "EXPLAIN QUERY PLAN " + sql, operation: "explain", collection: collection)
            statement.bind(parameters)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(3)) }
            return lines
        }
    }

    /// Polls `PRAGMA data_version` on the writer connection: it changes when another connection commits, never for
    /// this engine's own commits.
    public func watchExternalCommits(_ handler: @escaping @Sendable (String?) -> Void) -> @Sendable () -> Void {
        let stopped = Atomic<Bool>(false)
        let box = StopFlag(stopped)
        let interval = UInt32(max(10, configuration.observationIntervalMilliseconds)) * 1000
        let thread = Thread { [weak self] in
            // Asked on the writer: its `data_version` moves for every other connection's commit (other processes',
            // other stores' on the file) and never for its own, which the store reports as they happen.
            guard var version = try? self?.withWriter({ try $0.dataVersion() }) else { return }
            while !box.flag.load(ordering: .acquiring) {
                usleep(interval)
                guard let now = try? self?.withWriter({ try $0.dataVersion() }), now != version else { continue }
                version = now
                if !box.flag.load(ordering: .acquiring) { handler(nil) }
            }
        }
        thread.name = "strata.records.observer"
        thread.start()
        return { box.flag.store(true, ordering: .releasing) }
    }

    public var keyValue: any RecordKeyValueTable { SQLiteKeyValueTable(engine: self) }
}

/// An atomic flag shared with a thread (`Atomic` itself cannot be captured).
final class StopFlag: Sendable {
    let flag: Atomic<Bool>
    init(_ flag: consuming Atomic<Bool>) { self.flag = flag }
}
