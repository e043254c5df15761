import Foundation
public import StrataCore
import Synchronization

/// A JSON record store: typed collections of `Codable` records, queries on their fields, indexes,
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
/// The data lives in a ``RecordEngine``: a SQLite file (`SQLiteRecordEngine`; module `StrataSQLite` declares the
/// initializers that open one, `init(name:paths:)` and `init(path:)`), or a shared PostgreSQL database through the
/// `StrataPostgres` module — the same API and the same behaviour on both.
/// Several processes may open the same store: the database arbitrates.
public final class RecordStore: Sendable {
    /// The engine holding the data.
    public let engine: any RecordEngine
    /// Where the data lives: the database file for SQLite, the server and database (no password) for a server.
    public var path: String { engine.location }

    let catalog = Mutex(Catalog())
    let observation = ObservationHub()
    /// How changes of the store's key-value values (its ``/StrataCore/StorageBackend`` view) keep the store root's
    /// catalog true.
    let placement: TierPlacement

    /// Collections, relations and indexes declared in this process.
    struct Catalog {
        var collections: Set<String> = []
        var relations: [Relation] = []
    }

    /// Opens a store on `engine` and runs the migrations the database has not seen.
    /// - Parameters:
    ///   - engine: The database.
    ///   - migrations: The app's versioned migrations, in any order; those above the database's version run, in
    ///     one transaction, in version order.
    /// - Throws: ``/StrataCore/StorageError`` `.unsupportedVersion` for a store newer than the migrations given, or
    ///   what a migration throws (the database is then unchanged).
    public convenience init(engine: any RecordEngine, migrations: [Migration] = []) throws {
        try self.init(engine: engine, migrations: migrations, placement: .unbound(.records))
    }

    /// Opens a store on `engine` whose key-value values keep a store root's catalog true through `placement`.
    package init(engine: any RecordEngine, migrations: [Migration] = [], placement: TierPlacement) throws {
        self.engine = engine
        self.placement = placement
        try Self.migrate(engine, migrations: migrations)
        let known = try engine.collectionNames()
        catalog.withLock { $0.collections = known }
    }

    /// A store whose engine could not be opened: every call throws the engine's error (see
    /// ``UnopenedRecordEngine``). Runs no migration and reads no collection names.
    package init(unopened engine: UnopenedRecordEngine) {
        self.engine = engine
        self.placement = .unbound(.records)
    }

    /// Where the SQLite store `name` of a root is (`<root>/records/<name>.sqlite`), whether or not it exists.
    public static func sqlitePath(name: String, paths: StoragePaths) -> String {
        paths.directoryPath(for: .records) + "/" + name + ".sqlite"
    }

    /// Whether `name` is letters, digits and `_`, not starting with a digit, at most 64 bytes: the names of
    /// stores and collections, safe to write into SQL.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95
            }
            && !(name.utf8.first! >= 48 && name.utf8.first! <= 57)
    }

    /// Opens (creating if needed) a typed collection.
    /// - Parameters:
    ///   - type: The record type.
    ///   - name: The collection's name: letters, digits and `_`. The default is the type's name.
    ///   - indexes: Indexes to create if missing (expression indexes over the JSON fields).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for a bad name or field, or a database error.
    public func collection<R: Record>(_ type: R.Type, named name: String? = nil, indexes: [Index] = []) throws
        -> RecordCollection<R> where R.ID: RecordIdentifier
    {
        let name = name ?? String(describing: R.self)
        try ensureCollection(name)
        for index in indexes { try createIndex(index, in: name) }
        return RecordCollection(
            store: self, name: name, fields: RecordFields.of(R.self), reader: R.self as? any RecordDecodable.Type)
    }

    func ensureCollection(_ name: String) throws {
        try Self.checkName(name, operation: "open collection")
        if catalog.withLock({ $0.collections.contains(name) }) { return }
        try engine.createCollection(name)
        catalog.withLock { _ = $0.collections.insert(name) }
    }

    static func checkName(_ name: String, operation: String) throws {
        guard isValidName(name) else {
            throw StorageError(
                .invalidArgument,
                "a collection name is letters, digits and '_', not starting with a digit (at most 64)",
                tier: .records, collection: name, operation: operation)
        }
    }

    static func check(_ fields: [Field], collection: String, operation: String) throws {
        for field in fields where !field.isValid {
            throw StorageError(
                .invalidArgument, "'\(field.path)' is not a field path (letters, digits, '_', dots)",
                tier: .records, collection: collection, operation: operation)
        }
    }

    func createIndex(_ index: Index, in collection: String) throws {
        try Self.check([index.field], collection: collection, operation: "create index")
        try engine.createIndex(index, in: collection)
    }

    // MARK: Transactions

    /// Runs `body` inside one transaction: all of it commits, or none of it.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     try tx(accounts).update(debited)
    ///     try tx(accounts).update(credited)
    /// }
    /// ```
    /// Do not call `write` (or the collections' own write methods) from inside `body`: use `tx(collection)`.
    ///
    /// On SQLite, writers queue for the database's one write lock and `body` runs once. On a server engine,
    /// transactions run concurrently and serializably: when the server finds that two conflicted, the engine
    /// rolls one back and runs its `body` again, so keep side effects other than the transaction's out of it.
    /// - Throws: What `body` throws (after rolling back), or a database error.
    @discardableResult
    public func write<T>(_ body: (RecordTransaction) throws -> T) throws -> T {
        let (result, changed) = try engine.write { session -> (T, Set<String>) in
            let transaction = RecordTransaction(store: self, session: session)
            defer { transaction.isFinished = true }
            return (try body(transaction), transaction.changedCollections)
        }
        if !changed.isEmpty { observation.committed(changed) }
        return result
    }

    /// Runs one read (one statement, consistent by itself).
    @usableFromInline
    func readOne<T>(_ body: (any RecordSession) throws -> T) throws -> T {
        try engine.read(snapshot: false, body)
    }

    /// Runs `body` in one read transaction (a consistent snapshot).
    func read<T>(_ body: (any RecordSession) throws -> T) throws -> T {
        try engine.read(snapshot: true, body)
    }

    /// Checks the whole database (SQLite's `PRAGMA integrity_check`, or the engine's equivalent).
    /// - Returns: The problems found; empty when the database is sound.
    public func verify() throws -> [String] { try engine.verify() }

    /// The names of the collections in the database.
    public func collectionNames() throws -> [String] { try engine.collectionNames().sorted() }

    /// How the engine would run a query (`EXPLAIN`), for checking that indexes are used.
    public func queryPlan(for query: Query, in collection: String) throws -> [String] {
        try Self.checkName(collection, operation: "explain")
        try Self.check(query.predicate.fields + query.sort.map(\.field), collection: collection, operation: "explain")
        return try engine.queryPlan(for: query, in: collection)
    }
}
