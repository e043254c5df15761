import Foundation
import StrataCore
import Synchronization

/// The built-in engine: one SQLite file in WAL mode.
///
/// One writer connection serves every write (SQLite allows one writer at a time anyway; `BEGIN IMMEDIATE`
/// takes the file's write lock first, so writers in several processes queue instead of failing), and a pool of
/// read-only connections serves reads concurrently. A connection waits up to
/// ``RecordsConfiguration/busyTimeoutMilliseconds`` for another process's lock.
public final class SQLiteRecordEngine: RecordEngine {
    /// The database file.
    public let path: String
    /// How the database was opened.
    public let configuration: RecordsConfiguration
    public var name: String { "sqlite" }
    public var location: String { path }

    /// The format of the store's own tables; a file with a newer one is refused.
    static let formatVersion = 1

    // Every write runs under this lock, so writes in this process are serialized.
    let writer: Mutex<ConnectionBox>
    let readers: ReaderPool

    /// Opens (creating if needed) the database file and checks that it is a Strata record store.
    /// - Throws: ``StorageError``: `.corrupt` for a damaged or non-SQLite file, `.invalidArgument` for a SQLite
    ///   file that is not a Strata store, `.unsupportedVersion` for a store format newer than this code.
    public init(path: String, configuration: RecordsConfiguration = RecordsConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        let connection = try SQLiteConnection(path: path, readOnly: false, create: true, configuration: configuration)
        try Self.prepareSchema(connection)
        // No statement may keep a read snapshot open on the writer: a later BEGIN IMMEDIATE would fail at once.
        connection.resetStatements()
        writer = Mutex(ConnectionBox(connection))
        readers = ReaderPool(path: path, size: max(1, configuration.readerCount), configuration: configuration)
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
            while try statement.step() {
                let line = statement.text(0)
                if line != "ok" { problems.append(line) }
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

    /// Polls `PRAGMA data_version` on a connection of its own: it changes when another connection commits.
    public func watchExternalCommits(_ handler: @escaping @Sendable (String?) -> Void) -> @Sendable () -> Void {
        let stopped = Atomic<Bool>(false)
        let box = StopFlag(stopped)
        let interval = UInt32(max(10, configuration.observationIntervalMilliseconds)) * 1000
        let (path, configuration) = (path, configuration)
        let thread = Thread {
            guard
                let connection = try? SQLiteConnection(
                    path: path, readOnly: false, create: false, configuration: configuration),
                var version = try? connection.dataVersion()
            else { return }
            while !box.flag.load(ordering: .acquiring) {
                usleep(interval)
                guard let now = try? connection.dataVersion(), now != version else { continue }
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

/// The SQL of every record operation on one SQLite connection.
struct SQLiteSession: RecordSession {
    let connection: SQLiteConnection

    func write(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws -> Bool {
        let sql: String
        switch mode {
        case .insert: sql = "INSERT INTO c_\(collection) (id, body) VALUES (?, ?)"
        case .upsert:
            sql =
                "INSERT INTO c_\(collection) (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
        case .update: sql = "UPDATE c_\(collection) SET body = ?2 WHERE id = ?1"
        }
        let operation = mode == .insert ? "insert" : mode == .upsert ? "upsert" : "update"
        let statement = try connection.statement(sql, operation: operation, collection: collection)
        statement.bind(.text(id), at: 1)
        statement.bindText(body, at: 2)
        do {
            try statement.run()
        } catch var error as StorageError {
            if error.code == .constraintViolation, mode == .insert, error.message.contains("c_\(collection).id") {
                error.message = "a record with this id already exists"
                error.recovery = "Use upsert to replace it, or update"
            }
            throw error
        }
        return mode != .update || connection.changes > 0
    }

    func body<T>(_ collection: String, id: String, _ decode: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        let statement = try connection.statement(
            "SELECT body FROM c_\(collection) WHERE id = ?", operation: "get", collection: collection)
        defer { statement.reset() }
        statement.bind(.text(id), at: 1)
        guard try statement.step() else { return nil }
        return try statement.withBytes(0, decode)
    }

    static func selectSQL(
        _ query: Query, collection: String, parameters: inout [SQLiteValue], columns: String = "id, body"
    ) -> String {
        var sql = "SELECT \(columns) FROM c_\(collection) WHERE " + query.predicate.sqliteSQL(&parameters)
        let order = query.sort.map { "\($0.field.sqliteSQL) \($0.ascending ? "ASC" : "DESC")" } + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if query.limit != nil || query.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            parameters.append(.integer(Int64(query.limit ?? -1)))
            parameters.append(.integer(Int64(Swift.max(0, query.offset))))
        }
        return sql
    }

    func select(_ collection: String, _ query: Query, _ row: (String, UnsafeRawBufferPointer) throws -> Void) throws {
        var parameters: [SQLiteValue] = []
        let sql = Self.selectSQL(query, collection: collection, parameters: &parameters)
        let statement = try connection.statement(sql, operation: "query", collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        while try statement.step() {
            let id = statement.text(0)
            try statement.withBytes(1) { try row(id, $0) }
        }
    }

    func page(
        _ collection: String, after: String?, limit: Int, _ row: (String, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let statement = try connection.statement(
            after == nil
                ? "SELECT id, body FROM c_\(collection) ORDER BY id LIMIT ?"
                : "SELECT id, body FROM c_\(collection) WHERE id > ? ORDER BY id LIMIT ?",
            operation: "export", collection: collection)
        defer { statement.reset() }
        if let after {
            statement.bind([.text(after), .integer(Int64(limit))])
        } else {
            statement.bind([.integer(Int64(limit))])
        }
        while try statement.step() {
            let id = statement.text(0)
            try statement.withBytes(1) { try row(id, $0) }
        }
    }

    func ids(_ collection: String, matching predicate: Predicate) throws -> [String] {
        var parameters: [SQLiteValue] = []
        let sql = Self.selectSQL(Query(predicate), collection: collection, parameters: &parameters, columns: "id")
        let statement = try connection.statement(sql, operation: "query", collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        var ids: [String] = []
        while try statement.step() { ids.append(statement.text(0)) }
        return ids
    }

    func count(_ collection: String, matching predicate: Predicate) throws -> Int {
        var parameters: [SQLiteValue] = []
        let statement = try connection.statement(
            "SELECT count(*) FROM c_\(collection) WHERE " + predicate.sqliteSQL(&parameters), operation: "count",
            collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    func aggregate(_ collection: String, _ aggregate: RecordAggregate, of field: Field, matching predicate: Predicate)
        throws -> QueryValue?
    {
        var parameters: [SQLiteValue] = []
        let statement = try connection.statement(
            "SELECT \(aggregate.rawValue)(\(field.sqliteSQL)) FROM c_\(collection) WHERE "
                + predicate.sqliteSQL(&parameters),
            operation: aggregate.rawValue, collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        _ = try statement.step()
        switch statement.value(0) {
        case .null, .blob: return nil
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .text(let text): return .text(text)
        }
    }

    func delete(_ collection: String, ids: [String]) throws -> Int {
        let statement = try connection.statement(
            "DELETE FROM c_\(collection) WHERE id = ?", operation: "delete", collection: collection)
        var deleted = 0
        for id in ids {
            statement.reset()
            statement.bind(.text(id), at: 1)
            try statement.run()
            deleted += connection.changes
        }
        return deleted
    }

    func setNull(_ collection: String, field: Field, ids: [String]) throws {
        let statement = try connection.statement(
            "UPDATE c_\(collection) SET body = json_set(body, '$.\(field.path)', json('null')) WHERE id = ?",
            operation: "delete (nullify)", collection: collection)
        for id in ids {
            statement.reset()
            statement.bind(.text(id), at: 1)
            try statement.run()
        }
    }

    // MARK: Schema

    func schemaVersion() throws -> Int {
        let statement = try connection.statement("PRAGMA user_version", operation: "migrate")
        defer { statement.reset() }
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    func setSchemaVersion(_ version: Int) throws {
        try connection.execute("PRAGMA user_version = \(version)", operation: "migrate")
    }

    func createCollection(_ name: String) throws {
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS c_\(name) (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID",
            operation: "create collection", collection: name)
    }

    func createIndex(_ index: Index, in collection: String) throws {
        try connection.execute(
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.name(in: collection)) ON c_\(collection)(\(index.field.sqliteSQL))",
            operation: "create index", collection: collection)
    }

    func dropIndex(_ index: Index, in collection: String) throws {
        try connection.execute(
            "DROP INDEX IF EXISTS \(index.name(in: collection))", operation: "drop index", collection: collection)
    }

    func addField(_ collection: String, _ field: Field, value: JSONValue) throws {
        let statement = try connection.statement(
            "UPDATE c_\(collection) SET body = json_set(body, '$.\(field.path)', json(?)) WHERE json_type(body, '$.\(field.path)') IS NULL",
            operation: "migrate", collection: collection)
        statement.bind(.text(value.description), at: 1)
        try statement.run()
    }

    func renameField(_ collection: String, from: Field, to: Field) throws {
        try connection.execute(
            "UPDATE c_\(collection) SET body = json_remove(json_set(body, '$.\(to.path)', json(body -> '$.\(from.path)')), '$.\(from.path)') WHERE json_type(body, '$.\(from.path)') IS NOT NULL",
            operation: "migrate", collection: collection)
    }

    func removeField(_ collection: String, _ field: Field) throws {
        try connection.execute(
            "UPDATE c_\(collection) SET body = json_remove(body, '$.\(field.path)')", operation: "migrate",
            collection: collection)
    }
}

/// The `strata_kv` table of a SQLite store.
struct SQLiteKeyValueTable: RecordKeyValueTable {
    let engine: SQLiteRecordEngine

    func put(_ value: [UInt8], for key: String, modified: Double) throws {
        try engine.withWriter { connection in
            let statement = try connection.statement(
                "INSERT INTO strata_kv (key, value, modified) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, modified = excluded.modified",
                operation: "put")
            statement.bind([.text(key), .blob(Data(value)), .real(modified)])
            try statement.run()
        }
    }

    func value(for key: String) throws -> [UInt8]? {
        try engine.read(snapshot: true) { session in
            let statement = try (session as! SQLiteSession).connection.statement(
                "SELECT value FROM strata_kv WHERE key = ?", operation: "get")
            statement.bind(.text(key), at: 1)
            return try statement.step() ? statement.withBytes(0) { [UInt8]($0) } : nil
        }
    }

    func remove(_ key: String) throws -> Bool {
        try engine.withWriter { connection in
            let statement = try connection.statement("DELETE FROM strata_kv WHERE key = ?", operation: "delete")
            statement.bind(.text(key), at: 1)
            try statement.run()
            return connection.changes > 0
        }
    }

    func keys() throws -> [String] {
        try engine.read(snapshot: true) { session in
            let statement = try (session as! SQLiteSession).connection.statement(
                "SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            var keys: [String] = []
            while try statement.step() { keys.append(statement.text(0)) }
            return keys.sorted()
        }
    }

    func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? {
        try engine.read(snapshot: true) { session in
            let statement = try (session as! SQLiteSession).connection.statement(
                "SELECT length(value), modified FROM strata_kv WHERE key = ?", operation: "metadata")
            statement.bind(.text(key), at: 1)
            guard try statement.step() else { return nil }
            return (Int(statement.int64(0)), statement.double(1))
        }
    }
}
