public import StrataCore

/// A database that serves a ``RecordStore``: SQLite (`SQLiteRecordEngine`, module `StrataSQLite`, part of the
/// `StrataRecords` product), PostgreSQL (`PostgresRecordEngine`, module `StrataPostgres`), or your own.
///
/// The store keeps everything that is the same on every database — the typed collections, record coding,
/// relations and their delete rules, the migration driver, observation delivery — and asks the engine for
/// storage: tables of `(id, body)` rows with a JSON body, queries compiled from ``Query`` into the engine's own
/// SQL, transactions, and news of other processes' commits.
///
/// Every name an engine receives (collection, ``Field`` path) has passed the store's checks: collection names
/// are letters, digits and `_`, field paths are such names joined by dots. Values always arrive separately, to
/// be bound as parameters.
public protocol RecordEngine: Sendable {
    /// A short name for the engine, used as the backend's name in a ``/StrataCore/BackendRegistry`` (`sqlite`,
    /// `postgres`).
    var name: String { get }
    /// Where the data lives, for errors and display: a file path, or a server address without a password.
    var location: String { get }
    /// What the engine guarantees about concurrent use, in one sentence (its locking or isolation): what the store
    /// reports as ``/StrataCore/StorageBackend/concurrencyGuarantee``. The default claims threads only.
    var concurrencyGuarantee: String { get }
    /// How far a commit goes before it returns. The default is ``/StrataCore/Durability/durable``.
    var durability: Durability { get }
    /// Where the engine keeps its data (files, a server). The default is the ``location`` as one entry, a
    /// server when it has a scheme (`postgresql://`), else a file.
    var layout: [StorageLayoutEntry] { get }

    /// The app's schema version (the version of the newest migration applied), outside any transaction.
    func schemaVersion() throws -> Int
    /// Runs `body` in one exclusive transaction for migrating: no other migration, in any process, runs at the
    /// same time. All of it commits or none of it.
    func migrate(_ body: (any RecordSession) throws -> Void) throws
    /// The names of the collections that exist.
    func collectionNames() throws -> Set<String>
    /// Creates a collection's table if it is missing (several processes may ask at once).
    func createCollection(_ name: String) throws
    /// Creates an index if it is missing.
    func createIndex(_ index: Index, in collection: String) throws

    /// Runs `body` in one read-write transaction and commits it. `body` returns its result and the
    /// collections it changed, which an engine that tells other processes of commits announces with the
    /// commit. An engine may run `body` again when the database asks for a retry (a serialization failure);
    /// it then rolls back each failed attempt first.
    func write<T>(_ body: (any RecordSession) throws -> (T, Set<String>)) throws -> (T, Set<String>)
    /// Writes one record in a transaction of its own, announcing the change like ``write(_:)``. Returns
    /// `false` only for `.update` when no record has the id. The default runs ``write(_:)``; an engine can do it
    /// in one statement.
    func writeOne(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws
        -> Bool
    /// Runs `body` for reading. With `snapshot`, every read inside sees one consistent state of the
    /// database; without, `body` makes a single read (one statement is always consistent by itself).
    func read<T>(snapshot: Bool, _ body: (any RecordSession) throws -> T) throws -> T
    /// Lends the body of the record with this id to `use`, in a read of its own (a point get); returns `false`
    /// (and does not call `use`) when there is none. The default runs ``RecordSession/body(_:id:_:)`` in
    /// ``read(snapshot:_:)`` without a snapshot; an engine can read on a connection whose cache is likelier to
    /// hold the record. Not generic: the caller keeps what it decodes in a variable of its own, which in its
    /// specialized code costs no run-time metadata lookup, where an engine's `T?` cost two on each get.
    func readBody(_ collection: String, id: String, _ use: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool

    /// Starts telling `handler` of commits made by other processes (or other stores on the same database),
    /// with the collection when the engine knows it. Returns a function that stops it.
    func watchExternalCommits(_ handler: @escaping @Sendable (_ collection: String?) -> Void) -> @Sendable () -> Void

    /// Checks the database's integrity. Returns the problems found; empty when it is sound.
    func verify() throws -> [String]
    /// How the engine would run a query, in its own words (`EXPLAIN`), for checking that indexes are used.
    func queryPlan(for query: Query, in collection: String) throws -> [String]

    /// The byte-level key-value table behind ``RecordStore``'s ``/StrataCore/StorageBackend`` conformance.
    var keyValue: any RecordKeyValueTable { get }
}

extension RecordEngine {
    /// The default: safe from many threads; nothing is claimed about several processes.
    public var concurrencyGuarantee: String {
        "any thread (the '\(name)' engine states nothing about several processes)"
    }

    /// The default: ``/StrataCore/Durability/durable``.
    public var durability: Durability { .durable }

    /// The default: the ``location``.
    public var layout: [StorageLayoutEntry] {
        [StorageLayoutEntry(location.contains("://") ? .server : .file, location, role: "the '\(name)' database")]
    }

    public func readBody(_ collection: String, id: String, _ use: (UnsafeRawBufferPointer) throws -> Void)
        throws -> Bool
    {
        try read(snapshot: false) { try $0.body(collection, id: id, use) != nil }
    }

    public func writeOne(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode)
        throws -> Bool
    {
        try write { session in
            let found = try session.write(collection, id: id, body: body, mode: mode)
            return (found, found ? [collection] : [])
        }.0
    }
}

/// How a record is written.
public enum RecordWriteMode: Sendable, Hashable {
    /// A new record; an existing id is a `.constraintViolation`.
    case insert
    /// Insert, or replace the body of the record with this id.
    case upsert
    /// Replace an existing record's body; ``RecordSession/write(_:id:body:mode:)`` returns `false` when there
    /// is none.
    case update
}

/// An aggregate over one field.
public enum RecordAggregate: String, Sendable, Hashable {
    /// The smallest value.
    case min
    /// The largest value.
    case max
    /// The sum of the numeric values: an integer when every value is one.
    case sum
}

/// One connection's view of the database, inside ``RecordEngine/write(_:)``, ``RecordEngine/read(snapshot:_:)``
/// or ``RecordEngine/migrate(_:)``. Used by one thread, only inside the closure it was handed to.
public protocol RecordSession {
    /// Writes one record's JSON body. Returns `false` only for `.update` when no record has the id.
    func write(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws -> Bool
    /// Lends the body of the record with this id to `decode`; `nil` when there is none.
    func body<T>(_ collection: String, id: String, _ decode: (UnsafeRawBufferPointer) throws -> T) throws -> T?
    /// Calls `row` with the id and body of every record the query selects, in the query's order (then by id).
    func select(_ collection: String, _ query: Query, _ row: (String, UnsafeRawBufferPointer) throws -> Void) throws
    /// Up to `limit` records with ids after `after` (all when `nil`), in id order: for streaming a collection.
    func page(
        _ collection: String, after: String?, limit: Int, _ row: (String, UnsafeRawBufferPointer) throws -> Void
    ) throws
    /// The ids of the records matching `predicate`, in id order.
    func ids(_ collection: String, matching predicate: Predicate) throws -> [String]
    /// How many records match.
    func count(_ collection: String, matching predicate: Predicate) throws -> Int
    /// An aggregate of a field over the matching records; `nil` when none has a value.
    func aggregate(_ collection: String, _ aggregate: RecordAggregate, of field: Field, matching predicate: Predicate)
        throws -> QueryValue?
    /// Deletes the records with these ids. Returns how many there were.
    func delete(_ collection: String, ids: [String]) throws -> Int
    /// Sets `field` to JSON `null` in the records with these ids.
    func setNull(_ collection: String, field: Field, ids: [String]) throws

    // Schema changes, inside ``RecordEngine/migrate(_:)``.

    /// The schema version as this transaction sees it.
    func schemaVersion() throws -> Int
    /// Records the schema version.
    func setSchemaVersion(_ version: Int) throws
    /// Creates a collection's table if it is missing.
    func createCollection(_ name: String) throws
    /// Creates an index if it is missing.
    func createIndex(_ index: Index, in collection: String) throws
    /// Drops an index if it exists.
    func dropIndex(_ index: Index, in collection: String) throws
    /// Sets `field` to `value` in every record that lacks it.
    func addField(_ collection: String, _ field: Field, value: JSONValue) throws
    /// Moves `from` to `to` in every record that has `from`.
    func renameField(_ collection: String, from: Field, to: Field) throws
    /// Removes `field` from every record.
    func removeField(_ collection: String, _ field: Field) throws
}

/// The byte-level key-value table of an engine: opaque values under validated keys.
public protocol RecordKeyValueTable: Sendable {
    /// Stores or replaces a value.
    func put(_ value: [UInt8], for key: String, modified: Double) throws
    /// The value, or `nil`.
    func value(for key: String) throws -> [UInt8]?
    /// Removes a value. Returns whether there was one.
    func remove(_ key: String) throws -> Bool
    /// Removes a value and every copy of its bytes the engine keeps under the store root (freed pages, the
    /// write-ahead log), even when it was already removed. Returns whether there was one.
    func removeSecurely(_ key: String) throws -> Bool
    /// Every key, sorted.
    func keys() throws -> [String]
    /// The value's size and modification time (seconds since 1970), or `nil`.
    func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)?
    /// Stores or replaces several values, all in one transaction where the engine has them: a restore loads a
    /// table this way. The default puts them one by one.
    func put(contentsOf entries: [(key: String, value: [UInt8], modified: Double)]) throws
}

extension RecordKeyValueTable {
    public func put(contentsOf entries: [(key: String, value: [UInt8], modified: Double)]) throws {
        for entry in entries { try put(entry.value, for: entry.key, modified: entry.modified) }
    }
}
