import Foundation
public import StrataCore
import StrataPostgresClient
public import StrataRecords
import Synchronization

/// The records tier on PostgreSQL: the same ``/StrataRecords/RecordStore`` API, with the data in a shared database that
/// services on several machines use at once.
///
/// ```swift
/// let engine = try PostgresRecordEngine(
///     PostgresConfiguration(connectionString: "postgresql://app@db.internal/app?sslmode=verify-full"))
/// let store = try RecordStore(engine: engine, migrations: migrations)
/// let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
/// ```
///
/// Each collection is a table `c_<name> (id text, body jsonb, …)` in the configured schema. On a database that
/// sorts text bytewise, each indexed field has a `bytea` key column the client computes from the body
/// (`PostgresIndexKey`: ordered as `jsonb` orders the values) and a B-tree index on it; elsewhere each declared
/// index is a B-tree expression index over the field. Queries compile to SQL with every value bound as a parameter.
/// ``/StrataRecords/RecordStore/write(_:)`` runs at `SERIALIZABLE` isolation and reruns its closure when the server
/// reports a serialization failure or deadlock (within ``PostgresConfiguration/transactionRetryBudgetMilliseconds``,
/// the rerun queued on locks of the records it touched), so a read-modify-write is as safe as on SQLite while writers
/// on many machines run concurrently. Every call to the server is bounded by
/// ``PostgresConfiguration/callTimeoutMilliseconds``. Commits are
/// announced with `NOTIFY` and observed with `LISTEN`, naming the collection.
///
/// Comparisons follow `jsonb`: numbers compare as numbers, and an ordering comparison (`<`, `>=`, …) matches
/// only values of the compared value's JSON type. Text compares in the database's collation; a database
/// created with the `C` locale sorts text bytewise, as SQLite does, and lets prefix queries use indexes.
public final class PostgresRecordEngine: RecordEngine {
    /// How the engine connects.
    public let configuration: PostgresConfiguration
    /// `postgres`.
    public var name: String { "postgres" }
    /// `postgresql://user@host:port/database#schema`: never the password.
    public let location: String
    /// The server's transactions.
    public var concurrencyGuarantee: String { Self.facts(configuration).concurrencyGuarantee }
    /// A commit returns once the server reports it committed.
    public var durability: Durability { .durable }
    /// The server and schema.
    public var layout: [StorageLayoutEntry] {
        [StorageLayoutEntry(.server, location, role: Self.facts(configuration).layout[0].role)]
    }

    /// The facts an engine connected with `configuration` reports, without connecting (the address is the
    /// connection string's, its password hidden).
    public static func facts(_ configuration: PostgresConfiguration) -> BackendFacts {
        BackendFacts(
            tier: .records, name: "postgres",
            concurrencyGuarantee: "any thread, any process, any machine: the server's transactions (writes "
                + "SERIALIZABLE and retried on conflict, reads on one snapshot) over a pool of connections",
            durability: .durable,
            layout: [
                StorageLayoutEntry(
                    .server, configuration.redactedConnectionString + "#" + configuration.schema,
                    role: "PostgreSQL schema '\(configuration.schema)': one table per collection")
            ])
    }

    /// Whether the database sorts text bytewise (`C` or `POSIX` collation).
    public let sortsTextBytewise: Bool
    /// Whether the first connection was encrypted with TLS (as the connection string's `sslmode` asked).
    public let usesTLS: Bool

    let pool: PostgresPool
    /// The key columns of each collection, as last read from the catalog, with its statements (see
    /// ``collectionSQL(_:on:)``).
    let keyColumnCache = Mutex<[String: PostgresCollectionSQL]>([:])
    /// Records whose transactions conflicted lately, by lock key, with when (see ``markHot(_:)``).
    private let hotRecords = Mutex<[Int64: ContinuousClock.Instant]>([:])
    static let hotRecordMemory = Duration.seconds(10)
    static let hotRecordLimit = 4096
    /// Tags this engine's NOTIFY payloads, so its own commits are not reported back to it as external.
    let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// Where every record's lock key starts (``rowLockSeed(schema:)``).
    private let rowLockSeed: UInt64

    /// Connects, and creates the store's schema and tables (or checks them).
    /// - Throws: ``/StrataCore/StorageError``: `.connectionFailed` when the server cannot be reached,
    ///   `.authenticationFailed` for a wrong user or password, `.notFound` for a missing database,
    ///   `.invalidArgument` for a bad connection string, `.notAStore` for a schema that holds other tables,
    ///   `.unsupportedVersion` for a store written by a newer Strata.
    public init(_ configuration: PostgresConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        rowLockSeed = Self.rowLockSeed(schema: configuration.schema)
        pool = PostgresPool(configuration.client)
        let (where_, bytewise, tls) = try pool.with { connection -> (String, Bool, Bool) in
            let bytewise = try Self.sortsTextBytewise(on: connection)
            try Self.prepareSchema(connection, configuration, keyed: bytewise)
            return (connection.location, bytewise, connection.usesTLS)
        }
        location = where_ + "#" + configuration.schema
        sortsTextBytewise = bytewise
        usesTLS = tls
    }

    /// Opens a ``/StrataRecords/RecordStore`` on PostgreSQL.
    public static func store(_ configuration: PostgresConfiguration, migrations: [Migration] = []) throws
        -> RecordStore
    {
        try RecordStore(engine: PostgresRecordEngine(configuration), migrations: migrations)
    }

    /// Opens a ``/StrataRecords/RecordStore`` on PostgreSQL whose key-value values keep a store root's catalog
    /// true (`Storage` opens its records tier so).
    package static func store(_ configuration: PostgresConfiguration, placement: TierPlacement) throws -> RecordStore {
        try RecordStore(engine: PostgresRecordEngine(configuration), placement: placement)
    }

    /// Whether the database's default collation sorts text bytewise: the libc collation's name, and how the
    /// default collation (libc or ICU) really orders text, must both say so.
    static func sortsTextBytewise(on connection: PostgresConnection) throws -> Bool {
        let collation = try connection.query(
            "SELECT datcollate, ('B' < 'a' AND 'Z' < 'a' AND '_' < 'a' AND 'a' < 'é') FROM pg_database WHERE datname = current_database()",
            operation: "open")
        let name = collation.rowCount > 0 ? collation.text(0, 0) : ""
        let ordersBytewise = collation.rowCount > 0 && collation.text(0, 1) == "t"
        return ordersBytewise && (name == "C" || name == "POSIX" || name.hasPrefix("C."))
    }

    /// The format of the store's own tables; a schema with a newer one is refused, an older one upgraded when
    /// opened. Version 2: indexed fields have key columns the client fills (on a database that sorts text
    /// bytewise); version 1 had expression indexes over `jsonb`.
    static let formatVersion = 2

    /// Creates the store's own tables in the schema first on the search path: `strata_meta` (with the format and
    /// its version) and `strata_kv`.
    static let storeTablesSQL = """
        CREATE TABLE strata_meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);
        INSERT INTO strata_meta (key, value) VALUES ('format', 'strata-records'), ('format_version', '\(formatVersion)');
        CREATE TABLE strata_kv (key text COLLATE "C" PRIMARY KEY, value bytea NOT NULL, modified double precision NOT NULL);
        """

    static func prepareSchema(_ connection: PostgresConnection, _ configuration: PostgresConfiguration, keyed: Bool)
        throws
    {
        try connection.transaction(operation: "open") {
            try connection.execute(
                "SELECT pg_advisory_xact_lock(\(configuration.schemaLockKey)); CREATE SCHEMA IF NOT EXISTS \(configuration.quotedSchema)",
                operation: "open")
            let tables = try connection.query(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relkind IN ('r', 'p', 'v', 'm')",
                [.text(configuration.schema)], operation: "open")
            let names = Set((0..<tables.rowCount).map { tables.text($0, 0) })
            if names.contains("strata_meta") {
                let version = try connection.query(
                    "SELECT value FROM strata_meta WHERE key = 'format_version'", operation: "open")
                let found = version.rowCount > 0 ? Int(version.text(0, 0)) ?? 0 : 0
                guard found <= formatVersion else {
                    throw StorageError(
                        .unsupportedVersion,
                        "the store has format version \(found); this program reads up to \(formatVersion)",
                        tier: .records, path: connection.location,
                        recovery: "Open it with the newer program that wrote it")
                }
                if found < formatVersion { try upgrade(connection, configuration, keyed: keyed) }
            } else {
                // Tables named `strata_…` are Strata's own, of another engine sharing the store's schema (its
                // catalog); any other table makes it someone else's schema.
                guard names.allSatisfy({ $0.hasPrefix("strata_") }) else {
                    throw StorageError(
                        .notAStore,
                        "the schema '\(configuration.schema)' holds tables but is not a Strata record store (no strata_meta table)",
                        tier: .records, path: connection.location, recovery: "Give the store a schema of its own")
                }
                try connection.execute(storeTablesSQL, operation: "create")
            }
        }
    }

    // MARK: Transactions

    /// Runs `body` in a `SERIALIZABLE` transaction, and runs it again while the server rolls it back for a
    /// serialization failure or deadlock, within ``PostgresConfiguration/transactionRetryBudgetMilliseconds``.
    ///
    /// A transaction that conflicted runs again only after taking a session-level advisory lock on each record it
    /// read by id or wrote (one lock per record, in a fixed order, taken before the transaction's snapshot):
    /// writers that keep meeting on the same records then queue for them instead of failing each other again.
    /// The engine also remembers such records for a while: a later transaction whose first statement reads or
    /// writes one of them by id takes its lock before beginning. The locks are released when the transaction
    /// ends.
    public func write<T>(_ body: (any RecordSession) throws -> (T, Set<String>)) throws -> (T, Set<String>) {
        let started = ContinuousClock.now
        var attempts = 0
        var reconnected = false
        // The records this call's failed attempts read by id or wrote.
        var conflicted: Set<Int64> = []
        while true {
            do {
                return try pool.with { connection in
                    var locked: Set<Int64> = []
                    defer { if !locked.isEmpty { releaseRowLocks(on: connection) } }
                    while true {
                        attempts += 1
                        if !conflicted.isSubset(of: locked) {
                            if !locked.isEmpty { releaseRowLocks(on: connection) }
                            locked = []
                            let wanted = conflicted
                            try takeRowLocks(wanted.sorted(), on: connection)
                            locked = wanted
                        }
                        var session: PostgresSession?
                        do {
                            let result = try transaction(
                                on: connection, begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", deferringBegin: true,
                                tracksRecords: true,
                                // The first record of a transaction that holds no lock yet: if it conflicted
                                // lately, queue for it now, before the snapshot, rather than conflict again.
                                beforeBegin: { record in
                                    guard locked.isEmpty, self.isHot(record) else { return }
                                    try self.takeRowLocks([record], on: connection)
                                    locked = [record]
                                },
                                // Announced in the COMMIT's round trip; delivered only if it commits. The channel,
                                // token and collection names are letters, digits and `_`, safe as literals.
                                beforeCommit: { (_, changed: Set<String>) in
                                    changed.sorted().map {
                                        "SELECT pg_notify('\(configuration.channel)', '\(token) \($0)')"
                                    }
                                },
                                // Locks go in the COMMIT's round trip too, so that the next writer waits no longer
                                // than it must. (A COMMIT that fails skips it: the locks stay for the rerun.)
                                afterCommit: { locked.isEmpty ? [] : ["SELECT pg_advisory_unlock_all()"] }
                            ) {
                                session = $0
                                return try body($0)
                            }
                            locked = []
                            return result
                        } catch let error as StorageError
                            where Self.isKeyColumnMismatch(error)
                            && attempts < configuration.maximumTransactionAttempts
                        {
                            // Another process added or dropped a key column: read them again, and run again.
                            forgetKeyColumns()
                        } catch var error as StorageError where error.code == .conflict {
                            conflicted.formUnion(session?.touchedRecords ?? [])
                            markHot(session?.touchedRecords ?? [])
                            let elapsed = ContinuousClock.now - started
                            let budget = Duration.milliseconds(configuration.transactionRetryBudgetMilliseconds)
                            guard attempts < configuration.maximumTransactionAttempts && elapsed < budget else {
                                error.updatePostgres {
                                    $0.attempts = attempts
                                    $0.elapsed = PostgresConnection.seconds(since: started)
                                }
                                error.recovery =
                                    "Concurrent transactions kept touching the same records for the whole retry budget; run the operation again, or raise transactionRetryBudgetMilliseconds"
                                throw error
                            }
                            Self.backOff(attempt: attempts, left: budget - elapsed)
                        }
                    }
                }
            } catch let error as StorageError
                where error.code == .connectionFailed && !error.uncertainCommit && !reconnected
            {
                // Lost before COMMIT was sent: the server rolled the transaction back. Once more, on a new
                // connection (a server that stays unreachable is reported, not waited for).
                reconnected = true
            }
        }
    }

    /// Sleeps a random time in [0, min(200 ms, 1 ms · 2ⁿ)] (exponential backoff with full jitter), never past
    /// the time `left`, so that writers that conflicted spread out instead of meeting again.
    static func backOff(attempt: Int, left: Duration) {
        let ceiling = min(200_000, 1_000 << min(attempt, 20))
        let pause = min(Duration.microseconds(Int.random(in: 0...ceiling)), left)
        let (seconds, attoseconds) = pause.components
        usleep(UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    /// Notes records whose transaction conflicted: for ``hotRecordMemory`` after that, a transaction of this
    /// engine whose first statement names one of them takes its lock before beginning.
    private func markHot(_ records: Set<Int64>) {
        let now = ContinuousClock.now
        hotRecords.withLock { hot in
            if hot.count + records.count > Self.hotRecordLimit {
                hot = hot.filter { now - $0.value < Self.hotRecordMemory }
                if hot.count + records.count > Self.hotRecordLimit { hot.removeAll() }
            }
            for record in records { hot[record] = now }
        }
    }

    private func isHot(_ record: Int64) -> Bool {
        hotRecords.withLock { hot in hot[record].map { ContinuousClock.now - $0 < Self.hotRecordMemory } ?? false }
    }

    /// The advisory lock key of one record: 64 bits of a hash (FNV-1a) of `strata-row:<schema>:<collection>:<id>`.
    /// Two records that share a key only queue behind each other; nothing else depends on it. Every process
    /// computes the same key for a record.
    func rowLockKey(_ collection: String, _ id: String) -> Int64 {
        func add(_ byte: UInt8, to hash: inout UInt64) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        // The hash of the schema's part, worked out once.
        var hash = rowLockSeed
        for byte in collection.utf8 { add(byte, to: &hash) }
        add(UInt8(ascii: ":"), to: &hash)
        for byte in id.utf8 { add(byte, to: &hash) }
        return Int64(bitPattern: hash)
    }

    /// The FNV-1a hash of `strata-row:<schema>:`, where every record's lock key starts (see ``rowLockKey(_:_:)``).
    static func rowLockSeed(schema: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "strata-row:\(schema):".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// Takes session-level advisory locks on `keys` in ascending order (so that two writers never wait for each
    /// other's), outside any transaction: the next transaction's snapshot is taken after they are held. Waits at
    /// most the lock timeout.
    private func takeRowLocks(_ keys: [Int64], on connection: PostgresConnection) throws {
        _ = try connection.query(
            "SELECT count(pg_advisory_lock(k)) FROM unnest($1::bigint[]) AS k",
            [.text("{" + keys.map(String.init).joined(separator: ",") + "}")], operation: "lock records")
    }

    /// Releases the advisory locks; a connection that cannot be released is closed (its locks go with it).
    private func releaseRowLocks(on connection: PostgresConnection) {
        guard !connection.isBroken else { return }
        do {
            _ = try connection.query("SELECT pg_advisory_unlock_all()", operation: "unlock records")
        } catch {
            connection.discard()
        }
    }

    /// One statement in a transaction of its own (no `BEGIN`/`COMMIT` round trips): the write and its `NOTIFY`
    /// together, `WITH w AS (INSERT … RETURNING 1) SELECT pg_notify(…) FROM w`. A single statement needs no
    /// serializable retry. An upsert or update lost with its connection is repeated once (it is idempotent);
    /// a lost insert is reported, since it may have been applied.
    public func writeOne(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode)
        throws -> Bool
    {
        try PostgresSession.checkID(id, collection: collection, operation: PostgresSession.operation(mode))
        func attempt() throws -> Bool {
            try pool.with { connection in
                let statements = try collectionSQL(collection, on: connection)
                let keys = statements.keys
                var parameters: [PostgresParameter] = [.text(id), .bytes(body)]
                parameters.reserveCapacity(keys.count + 4)
                for key in try keys.keys(of: body, id: id, in: collection) {
                    parameters.append(PostgresSession.keyParameter(key))
                }
                parameters.append(.text(configuration.channel))
                parameters.append(.text(token + " " + collection))
                do {
                    return try connection.query(
                        statements.announcedWrite(mode), parameters, operation: PostgresSession.operation(mode),
                        collection: collection
                    ).rowCount > 0
                } catch let error as StorageError {
                    throw PostgresSession.explain(error)
                }
            }
        }
        do {
            do {
                return try attempt()
            } catch let error as StorageError where Self.isKeyColumnMismatch(error) {
                // Another process added or dropped a key column: read them again.
                forgetKeyColumns()
                return try attempt()
            }
        } catch let error as StorageError where error.code == .connectionFailed && mode != .insert {
            return try attempt()
        } catch var error as StorageError
            where (error.code == .connectionFailed || error.code == .timeout) && error.operation != "connect"
        {
            // Lost or abandoned after the statement was sent: it may have been applied. (A failed connect sent
            // nothing.)
            error.uncertainCommit = true
            throw error
        }
    }

    public func read<T>(snapshot: Bool, _ body: (any RecordSession) throws -> T) throws -> T {
        // A read changes nothing, so one lost to a dropped connection simply runs again on a new one; one that
        // named a key column another process dropped, with the columns read again.
        do {
            return try readOnce(snapshot: snapshot, body)
        } catch let error as StorageError where error.code == .connectionFailed || Self.isKeyColumnMismatch(error) {
            if Self.isKeyColumnMismatch(error) { forgetKeyColumns() }
            return try readOnce(snapshot: snapshot, body)
        }
    }

    /// A point get: one statement on a pooled connection, the body decoded after the connection went back to the
    /// pool. Run again once on a new connection when the first is lost, as ``read(snapshot:_:)`` does.
    public func readBody(_ collection: String, id: String, _ use: (UnsafeRawBufferPointer) throws -> Void) throws
        -> Bool
    {
        // No record has an id PostgreSQL's text cannot hold (writes refuse it).
        guard !id.utf8.contains(0) else { return false }
        let sql = PostgresSession.getSQL(collection)
        func attempt() throws -> PostgresResult {
            try pool.with { try $0.query(sql, [.text(id)], operation: "get", collection: collection) }
        }
        let result: PostgresResult
        do {
            result = try attempt()
        } catch let error as StorageError where error.code == .connectionFailed {
            result = try attempt()
        }
        guard result.rowCount > 0 else { return false }
        try result.withBytes(0, 0, use)
        return true
    }

    private func readOnce<T>(snapshot: Bool, _ body: (any RecordSession) throws -> T) throws -> T {
        try pool.with { connection in
            guard snapshot else { return try body(PostgresSession(connection: connection, engine: self)) }
            return try transaction(
                on: connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", deferringBegin: true
            ) {
                try body($0)
            }
        }
    }

    public func migrate(_ body: (any RecordSession) throws -> Void) throws {
        // A migration may add or drop key columns, and roll back: what it read is not kept.
        defer { forgetKeyColumns() }
        try pool.with { connection in
            try transaction(on: connection, begin: "BEGIN") { session in
                _ = try connection.query(
                    "SELECT pg_advisory_xact_lock($1::bigint)", [.text(String(configuration.schemaLockKey))],
                    operation: "migrate")
                try body(session)
            }
        }
    }

    /// Runs `body` between `begin` and COMMIT on `connection`, rolling back when anything fails.
    ///
    /// A transaction whose `begin` is deferred runs in libpq's pipeline mode: `BEGIN`, the writes that need no
    /// answer, and the `COMMIT` go out without waiting for each other, so that a transaction of many writes costs
    /// one round trip (plus one per read). The first statement that fails is reported, at the next read or at the
    /// commit, naming its record; the server skips everything after it, and the transaction is rolled back.
    /// - Parameters:
    ///   - deferringBegin: Whether to send `begin` only before the first statement (see
    ///     ``PostgresSession/deferredBegin``), calling `beforeBegin` with that statement's record; such a
    ///     transaction is pipelined.
    ///   - tracksRecords: Whether the session remembers the records it reads by id or writes (see
    ///     ``PostgresSession/tracksRecords``), for a transaction that runs again after a conflict.
    ///   - beforeCommit: Statements sent just before `COMMIT`, one each.
    ///   - afterCommit: Statements sent just after `COMMIT` (skipped if it fails), one each.
    func transaction<T>(
        on connection: PostgresConnection, begin: String, deferringBegin: Bool = false, tracksRecords: Bool = false,
        beforeBegin: ((Int64) throws -> Void)? = nil, beforeCommit: (T) -> [String] = { _ in [] },
        afterCommit: () -> [String] = { [] }, _ body: (PostgresSession) throws -> T
    ) throws -> T {
        let session = PostgresSession(connection: connection, engine: self, tracksRecords: tracksRecords)
        if deferringBegin {
            try connection.enterPipeline()
            session.deferredBegin = begin
            session.beforeBegin = beforeBegin
        } else {
            try connection.execute(begin, operation: "begin")
        }
        do {
            let result = try body(session)
            try session.beginIfDeferred(first: nil)
            try session.remembering { try session.sendBatch() }
            try session.throwIfAborted()
            try commit(on: connection, before: beforeCommit(result), after: afterCommit())
            return result
        } catch {
            // A chunk of records the server refused at the commit is replayed to name the record.
            let error = (error as? StorageError).map(session.nameFailedRecord) ?? error
            connection.cancelCopy()
            connection.leavePipeline()
            if connection.isInTransaction && !connection.isBroken {
                try? connection.execute("ROLLBACK", operation: "rollback")
            }
            // A pipelined write's failure may surface at the commit: say what it means there too.
            throw (error as? StorageError).map(PostgresSession.explain) ?? error
        }
    }

    /// Sends `before`, `COMMIT` and `after` (in one round trip), and leaves pipeline mode.
    /// - Throws: The error of a statement of the transaction that failed (nothing was committed), or, when the
    ///   connection is lost or the server stops answering after `COMMIT` was sent, the error marked
    ///   ``/StrataCore/StorageError/uncertainCommit``.
    private func commit(on connection: PostgresConnection, before: [String], after: [String]) throws {
        do {
            if connection.isPipelining {
                for statement in before { try connection.send(statement, operation: "commit", prepared: false) }
                try connection.send("COMMIT", operation: "commit", prepared: false, isCommit: true)
                for statement in after { try connection.send(statement, operation: "commit", prepared: false) }
                try connection.sync()
                connection.leavePipeline()
            } else {
                try connection.execute((before + ["COMMIT"] + after).joined(separator: "; "), operation: "commit")
            }
        } catch var error as StorageError where error.isConnectionLoss {
            if connection.pipeline?.commitSucceeded == true {
                // Lost after the server answered the COMMIT: committed. (Its locks went with the connection.)
                connection.discard()
                return
            }
            error.operation = "commit"
            error.message =
                (error.code == .timeout
                    ? "the server did not answer the commit in time" : "the connection was lost while committing")
                + "; the transaction may or may not have been applied: " + error.message
            error.uncertainCommit = true
            throw error
        }
    }

    // MARK: Schema

    public func schemaVersion() throws -> Int {
        try read(snapshot: false) { try $0.schemaVersion() }
    }

    public func collectionNames() throws -> Set<String> {
        try read(snapshot: false) { session in
            let result = try (session as! PostgresSession).connection.query(
                #"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relkind = 'r' AND c.relname LIKE 'c\_%'"#,
                [.text(configuration.schema)], operation: "open")
            return Set((0..<result.rowCount).map { String(result.text($0, 0).dropFirst(2)) })
        }
    }

    public func createCollection(_ name: String) throws {
        try migrate { try $0.createCollection(name) }
    }

    /// Under the store's advisory lock, like a migration: two processes creating the same table at once would
    /// otherwise race inside PostgreSQL's catalog.
    public func createIndex(_ index: Index, in collection: String) throws {
        try migrate { try $0.createIndex(index, in: collection) }
    }

    /// Checks that every collection's table has Strata's shape and holds JSON objects, and, when the `amcheck`
    /// extension is installed, that every index of the schema is sound.
    public func verify() throws -> [String] {
        try read(snapshot: true) { session in
            let connection = (session as! PostgresSession).connection
            var problems: [String] = []
            for name in try collectionNames().sorted() {
                let columns = try connection.query(
                    "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = $1::text AND table_name = $2::text",
                    [.text(configuration.schema), .text("c_" + name)], operation: "verify", collection: name)
                let shape = columns.rowCount > 0 ? columns.text(0, 0) : ""
                let keys = try PostgresKeyColumns.read(name, on: connection)
                // The catalog holds the key columns' names folded to lower case, as they are written unquoted.
                let expected = "id text, body jsonb" + keys.columns.map { ", \($0.lowercased()) bytea" }.joined()
                guard shape == expected else {
                    problems.append("collection '\(name)': columns are (\(shape)), not (\(expected))")
                    continue
                }
                let bad = try connection.query(
                    "SELECT id FROM c_\(name) WHERE jsonb_typeof(body) <> 'object' ORDER BY id LIMIT 10",
                    operation: "verify", collection: name)
                for row in 0..<bad.rowCount {
                    problems.append("collection '\(name)': record '\(bad.text(row, 0))' is not a JSON object")
                }
            }
            let amcheck = try connection.query(
                "SELECT 1 FROM pg_extension WHERE extname = 'amcheck'", operation: "verify")
            if amcheck.rowCount > 0 {
                let indexes = try connection.query(
                    "SELECT c.oid::text, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = $1::text AND c.relkind = 'i' AND a.amname = 'btree'",
                    [.text(configuration.schema)], operation: "verify")
                for row in 0..<indexes.rowCount {
                    do {
                        _ = try connection.query(
                            "SELECT bt_index_check($1::oid)", [.text(indexes.text(row, 0))], operation: "verify")
                    } catch let error as StorageError {
                        problems.append("index \(indexes.text(row, 1)): \(error.message)")
                    }
                }
            }
            return problems
        }
    }

    /// `EXPLAIN` of the query, planned with sequential scans discouraged (`enable_seqscan = off`): on a table
    /// small enough that PostgreSQL would rather read it whole, the plan still shows whether an index can serve
    /// the query.
    public func queryPlan(for query: Query, in collection: String) throws -> [String] {
        try pool.with { connection in
            var builder = PostgresSQL(
                bytewiseText: sortsTextBytewise, keys: try keyColumns(collection, on: connection))
            let sql = builder.select(query, collection: collection)
            return try transaction(on: connection, begin: "BEGIN READ ONLY") { _ in
                try connection.execute("SET LOCAL enable_seqscan = off", operation: "explain")
                let result = try connection.query(
                    "EXPLAIN " + sql, builder.parameters, operation: "explain", collection: collection)
                return (0..<result.rowCount).map { result.text($0, 0) }
            }
        }
    }

    // MARK: Observation

    /// Listens on the store's channel with a connection of its own (``/StrataPostgresClient/PostgresListener``): the
    /// handler gets each other engine's collection name, and `nil` after a lost connection was reopened.
    public func watchExternalCommits(_ handler: @escaping @Sendable (String?) -> Void) -> @Sendable () -> Void {
        let token = token
        return PostgresListener.start(configuration.client, channel: configuration.channel) {
            handler(nil)
        } onNotification: { payload in
            let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] != token else { return }
            handler(parts[1])
        }
    }

    public var keyValue: any RecordKeyValueTable { PostgresKeyValueTable(engine: self) }

    /// Runs SQL on a pooled connection (tests use it to set up foreign schemas and damage).
    func executeForTesting(_ sql: String) throws {
        try pool.with { connection in
            try connection.execute("SET search_path TO \(configuration.quotedSchema)", operation: "test")
            try connection.execute(sql, operation: "test")
        }
    }

    /// Closes the idle connections of the pool (connections in use close when they come back).
    public func close() { pool.drain() }
}

extension StorageError {
    /// Set on a lost COMMIT, whose outcome is unknown: never retried.
    var uncertainCommit: Bool {
        get { recovery?.hasPrefix("The commit's outcome is unknown") == true }
        set {
            if newValue {
                recovery = "The commit's outcome is unknown: check whether the change is there before repeating it"
            }
        }
    }
}

extension PostgresRecordEngine {
    /// Deletes a store: its schema and every table in it. Close the stores on it first (a store still open
    /// holds connections that make the drop wait up to the lock timeout, then fail with `.lockTimeout`).
    /// - Returns: Whether there was a schema to drop.
    @discardableResult
    public static func dropStore(_ configuration: PostgresConfiguration) throws -> Bool {
        try configuration.validate()
        let connection = try PostgresConnection(configuration.client)
        defer { connection.close() }
        let found = try connection.query(
            "SELECT 1 FROM pg_namespace WHERE nspname = $1::text", [.text(configuration.schema)], operation: "drop")
        guard found.rowCount > 0 else { return false }
        try connection.execute("DROP SCHEMA IF EXISTS \(configuration.quotedSchema) CASCADE", operation: "drop")
        return true
    }
}
