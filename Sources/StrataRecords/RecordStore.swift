import Foundation
public import StrataCore
import Synchronization

/// A JSON record store on SQLite: typed collections of `Codable` records, queries on their fields, indexes,
/// transactions, migrations and observation. The Linux stand-in for CoreData and SwiftData.
///
/// ```swift
/// struct Person: Record { var id: String; var name: String; var age: Int }
///
/// let store = try RecordStore(name: "main", paths: paths)
/// let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
/// try people.insert(Person(id: "p1", name: "Ada", age: 36))
/// let adults = try people.fetch(Query(Field("age") >= 18, sort: [.ascending("name")], limit: 20))
/// try store.write { tx in
///     try tx(people).update(Person(id: "p1", name: "Ada", age: 37))
///     try tx(people).delete(id: "p2")
/// }                                                        // all or nothing
/// ```
///
/// One writer connection serves every write (SQLite allows one writer at a time anyway) and a pool of reader
/// connections serves reads concurrently (WAL mode). Several processes may open the same file: SQLite's locks
/// arbitrate, and a connection waits up to ``RecordsConfiguration/busyTimeoutMilliseconds`` for another.
public final class RecordStore: Sendable {
    /// The database file.
    public let path: String
    /// How the database was opened.
    public let configuration: RecordsConfiguration

    /// The format of the store's own tables; a file with a newer one is refused.
    static let formatVersion = 1

    // The writer connection. Every write runs under this lock, so writes in this process are serialized;
    // SQLite's file locks serialize them against other processes (BEGIN IMMEDIATE takes the write lock first).
    let writer: Mutex<ConnectionBox>
    let readers: ReaderPool
    let catalog = Mutex(Catalog())
    let observation = ObservationHub()

    /// Collections, relations and indexes declared in this process.
    struct Catalog {
        var collections: Set<String> = []
        var relations: [Relation] = []
    }

    /// Opens (creating if needed) the store at `path` and runs the migrations the file has not seen.
    /// - Parameters:
    ///   - path: The database file.
    ///   - configuration: Durability, busy timeout, readers. The default is ``RecordsConfiguration/init(synchronous:busyTimeoutMilliseconds:readerCount:observationIntervalMilliseconds:)``.
    ///   - migrations: The app's versioned migrations, in any order; those above the file's version run, in one
    ///     transaction, in version order.
    /// - Throws: ``StorageError``: `.corrupt` for a damaged or non-SQLite file, `.invalidArgument` for a SQLite
    ///   file that is not a Strata store, `.unsupportedVersion` for a store newer than this code or than the
    ///   migrations given, or what a migration throws (the file is then unchanged).
    public init(
        path: String, configuration: RecordsConfiguration = RecordsConfiguration(), migrations: [Migration] = []
    )
        throws
    {
        self.path = path
        self.configuration = configuration
        let connection = try SQLiteConnection(path: path, readOnly: false, create: true, configuration: configuration)
        try Self.prepareSchema(connection)
        connection.resetStatements()
        try Self.migrate(connection, migrations: migrations)
        connection.resetStatements()
        writer = Mutex(ConnectionBox(connection))
        readers = ReaderPool(path: path, size: max(1, configuration.readerCount), configuration: configuration)
        let known = try Self.knownCollections(connection)
        // No statement may keep a read snapshot open on the writer: a later BEGIN IMMEDIATE would fail at once.
        connection.resetStatements()
        catalog.withLock { $0.collections = known }
    }

    /// Opens the store `<root>/records/<name>.sqlite`.
    public convenience init(
        name: String, paths: StoragePaths, configuration: RecordsConfiguration = RecordsConfiguration(),
        migrations: [Migration] = []
    ) throws {
        guard Self.isValidName(name) else {
            throw StorageError(
                .invalidArgument, "a store name is letters, digits and '_' (at most 64)", tier: .records, key: name)
        }
        try self.init(
            path: try paths.path(for: name + ".sqlite", in: .records, createParents: true),
            configuration: configuration,
            migrations: migrations)
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95
            }
            && !(name.utf8.first! >= 48 && name.utf8.first! <= 57)
    }

    /// Creates Strata's tables in a new file, or checks them in an existing one.
    static func prepareSchema(_ connection: SQLiteConnection) throws {
        let tables = try connection.statement(
            "SELECT name FROM sqlite_master WHERE type = 'table'", operation: "open")
        var names: Set<String> = []
        while try tables.step() { names.insert(tables.text(0)) }
        if names.contains("strata_meta") {
            let version = try connection.statement(
                "SELECT value FROM strata_meta WHERE key = 'format_version'", operation: "open")
            let found = try version.step() ? Int(version.text(0)) ?? 0 : 0
            guard found <= formatVersion else {
                throw StorageError(
                    .unsupportedVersion,
                    "the store has format version \(found); this program reads up to \(formatVersion)", tier: .records,
                    path: connection.path, recovery: "Open it with the newer program that wrote it")
            }
            return
        }
        guard names.isEmpty else {
            throw StorageError(
                .invalidArgument, "the file is a SQLite database but not a Strata record store (no strata_meta table)",
                tier: .records, path: connection.path, recovery: "Point the store at its own file")
        }
        try connection.execute(
            """
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS strata_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
            INSERT OR IGNORE INTO strata_meta (key, value) VALUES ('format', 'strata-records'), ('format_version', '\(formatVersion)');
            CREATE TABLE IF NOT EXISTS strata_kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, modified REAL NOT NULL) WITHOUT ROWID;
            COMMIT;
            """, operation: "create")
    }

    static func knownCollections(_ connection: SQLiteConnection) throws -> Set<String> {
        let statement = try connection.statement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'", operation: "open")
        var names: Set<String> = []
        while try statement.step() { names.insert(String(statement.text(0).dropFirst(2))) }
        return names
    }

    /// Opens (creating if needed) a typed collection.
    /// - Parameters:
    ///   - type: The record type.
    ///   - name: The collection's name: letters, digits and `_`. The default is the type's name.
    ///   - indexes: Indexes to create if missing (expression indexes over the JSON fields).
    /// - Throws: ``StorageError`` `.invalidArgument` for a bad name or field, or a database error.
    public func collection<R: Record>(_ type: R.Type, named name: String? = nil, indexes: [Index] = []) throws
        -> RecordCollection<R> where R.ID: RecordIdentifier
    {
        let name = name ?? String(describing: R.self)
        try ensureCollection(name)
        for index in indexes { try createIndex(index, in: name) }
        return RecordCollection(store: self, name: name)
    }

    func ensureCollection(_ name: String) throws {
        guard Self.isValidName(name) else {
            throw StorageError(
                .invalidArgument,
                "a collection name is letters, digits and '_', not starting with a digit (at most 64)",
                tier: .records, collection: name, operation: "open collection")
        }
        if catalog.withLock({ $0.collections.contains(name) }) { return }
        try withWriter { connection in
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS c_\(name) (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID",
                operation: "create collection", collection: name)
        }
        catalog.withLock { _ = $0.collections.insert(name) }
    }

    func createIndex(_ index: Index, in collection: String) throws {
        guard index.field.isValid else {
            throw StorageError(
                .invalidArgument, "'\(index.field.path)' is not a field path (letters, digits, '_', dots)",
                tier: .records,
                collection: collection, operation: "create index")
        }
        try withWriter { connection in
            try connection.execute(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.sqlName(in: collection)) ON c_\(collection)(\(index.field.sql))",
                operation: "create index", collection: collection)
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

    /// Runs `body` inside one transaction on the writer: all of it commits, or none of it.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     try tx(accounts).update(debited)
    ///     try tx(accounts).update(credited)
    /// }
    /// ```
    /// Do not call `write` (or the collections' own write methods) from inside `body`: use `tx(collection)`.
    /// - Throws: What `body` throws (after rolling back), or a database error.
    @discardableResult
    public func write<T>(_ body: (RecordTransaction) throws -> T) throws -> T {
        let (result, changed) = try writer.withLock { box throws -> (T, Set<String>) in
            let connection = box.connection
            try connection.execute("BEGIN IMMEDIATE", operation: "begin")
            let transaction = RecordTransaction(store: self, connection: connection)
            do {
                let result = try body(transaction)
                connection.resetStatements()
                try connection.execute("COMMIT", operation: "commit")
                transaction.isFinished = true
                return (result, transaction.changedCollections)
            } catch {
                transaction.isFinished = true
                connection.resetStatements()
                if connection.isInTransaction { try? connection.execute("ROLLBACK", operation: "rollback") }
                throw error
            }
        }
        if !changed.isEmpty { observation.committed(changed) }
        return result
    }

    /// Runs one statement's worth of reading on a reader connection (SQLite gives a single statement its own
    /// consistent snapshot). `body` must reset the statements it uses.
    func readOne<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.with(body)
    }

    /// Runs `body` on a reader connection, in one read transaction (a consistent snapshot).
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.with { connection in
            try connection.execute("BEGIN", operation: "read")
            defer {
                connection.resetStatements()
                try? connection.execute("COMMIT", operation: "read")
            }
            return try body(connection)
        }
    }

    /// Checks the whole file with SQLite's `PRAGMA integrity_check`.
    /// - Returns: The problems found; empty when the database is sound.
    public func verify() throws -> [String] {
        try withWriter { connection in
            let statement = try connection.statement("PRAGMA integrity_check", operation: "verify")
            var problems: [String] = []
            while try statement.step() {
                let line = statement.text(0)
                if line != "ok" { problems.append(line) }
            }
            return problems
        }
    }

    /// The names of the collections in the file.
    public func collectionNames() throws -> [String] {
        try withWriter { try Self.knownCollections($0) }.sorted()
    }

    /// `EXPLAIN QUERY PLAN` of a query, for checking that indexes are used.
    public func queryPlan(for query: Query, in collection: String) throws -> [String] {
        var parameters: [SQLiteValue] = []
        let sql = try RecordCollectionSQL.select(query, collection: collection, parameters: &parameters)
        return try read { connection in
            let statement = try connection.statement(
                "EXPLAIN QUERY PLAN " + sql, operation: "explain", collection: collection)
            statement.bind(parameters)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(3)) }
            return lines
        }
    }
}

/// An index on a field: an expression index over the JSON, optionally unique.
public struct Index: Sendable, Hashable {
    public var field: Field
    public var isUnique: Bool

    /// A plain index.
    public static func field(_ field: Field) -> Index { Index(field: field, isUnique: false) }
    /// A uniqueness constraint (and index): two records may not hold the same value.
    public static func unique(_ field: Field) -> Index { Index(field: field, isUnique: true) }

    func sqlName(in collection: String) -> String {
        "i_\(collection)_\(field.path.replacingOccurrences(of: ".", with: "__"))\(isUnique ? "_u" : "")"
    }
}

/// A connection handed to one thread at a time: by the writer lock or by the reader pool.
final class ConnectionBox: @unchecked Sendable {
    // Only touched by the thread that holds the writer lock or has checked it out of the pool.
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}

/// Read-only connections, checked out one per reading thread; opened lazily up to `size`.
final class ReaderPool: Sendable {
    let path: String
    let size: Int
    let configuration: RecordsConfiguration
    private let idle = Mutex<[ConnectionBox]>([])
    private let slots: DispatchSemaphore

    init(path: String, size: Int, configuration: RecordsConfiguration) {
        self.path = path
        self.size = size
        self.configuration = configuration
        slots = DispatchSemaphore(value: size)
    }

    func with<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let box = try idle.withLock { $0.popLast() } ?? makeReader()
        defer { idle.withLock { $0.append(box) } }
        return try body(box.connection)
    }

    private func makeReader() throws -> ConnectionBox {
        let connection = try SQLiteConnection(path: path, readOnly: false, create: false, configuration: configuration)
        try connection.execute("PRAGMA query_only=1", operation: "open reader")
        return ConnectionBox(connection)
    }
}
