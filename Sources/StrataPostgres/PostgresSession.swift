import Foundation
import StrataCore
import StrataPostgresClient
import StrataRecords

/// The SQL of every record operation on one PostgreSQL connection.
final class PostgresSession: RecordSession {
    let connection: PostgresConnection
    unowned let engine: PostgresRecordEngine
    /// The first error a statement of this session threw (the transaction is then aborted on the server).
    private(set) var failure: StorageError?
    /// The advisory lock keys of the records this session read by id or wrote (at most
    /// ``touchedRecordLimit``): a transaction that conflicted locks them before it runs again.
    private(set) var touchedRecords: Set<Int64> = []
    static let touchedRecordLimit = 64
    /// Inserts or upserts not sent yet, to go out as one statement (see `PostgresSession+Batch.swift`).
    var batch: PostgresWriteBatch?
    /// The chunks of records sent and not yet known stored, by number, for a replay.
    var sentChunks: [Int: PostgresWriteBatch] = [:]
    var chunkCount = 0
    /// How many records the transaction queued in chunks: past ``PostgresWriteBatch/copyAfterRows``, inserts go
    /// out as `COPY`.
    var queuedRecords = 0
    /// The key columns of the collections this session wrote or queried, with their statements (see
    /// ``collectionSQL(_:)``).
    private var knownKeyColumns: [String: PostgresCollectionSQL] = [:]
    /// Whether the session remembers the records it reads by id or writes (``touchedRecords``, and the first one
    /// for ``beforeBegin``): only a write transaction, which may run again after a conflict, has a use for them.
    let tracksRecords: Bool

    init(connection: PostgresConnection, engine: PostgresRecordEngine, tracksRecords: Bool = false) {
        self.connection = connection
        self.engine = engine
        self.tracksRecords = tracksRecords
    }

    /// A statement that failed inside the transaction leaves it aborted, and COMMIT would then quietly roll
    /// back: this reports the failure instead (the closure may have caught it).
    func throwIfAborted() throws {
        // In pipeline mode a failure is known once its answer is read, whatever the server's state says now.
        if connection.isPipelining, let failure { throw failure }
        guard connection.transactionFailed else { return }
        throw failure
            ?? StorageError(
                .io, "the transaction was aborted by an earlier error", tier: .records, path: connection.location)
    }

    private var bytewise: Bool { engine.sortsTextBytewise }

    /// A transaction not begun yet: `BEGIN …` goes out just before the first statement, so that a lock on the
    /// first record that statement names can be taken before the transaction's snapshot.
    var deferredBegin: String?
    /// Called with the first statement's record (its lock key) before the deferred `BEGIN`.
    var beforeBegin: ((Int64) throws -> Void)?

    /// Sends the deferred `BEGIN`, if there is one.
    /// - Parameter record: The lock key of the record the first statement reads or writes by id, if any.
    func beginIfDeferred(first record: Int64?) throws {
        guard let begin = deferredBegin else { return }
        deferredBegin = nil
        if let record, let beforeBegin { try beforeBegin(record) }
        if connection.isPipelining {
            try remembering { try connection.send(begin, operation: "begin", prepared: false) }
        } else {
            try connection.execute(begin, operation: "begin")
        }
    }

    /// Runs `body`, remembering the first error it throws as the session's ``failure`` (a chunk of records the
    /// server refused is replayed first, to name the record that failed).
    func remembering<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            let explained = Self.explain(nameFailedRecord(error))
            if failure == nil { failure = explained }
            throw explained
        }
    }

    /// Remembers records read by id or written; returns the lock key of the first (nothing in a session that
    /// does not track records).
    @discardableResult
    private func touch(_ collection: String, _ ids: some Sequence<String>) -> Int64? {
        guard tracksRecords else { return nil }
        var first: Int64?
        for id in ids {
            let key = engine.rowLockKey(collection, id)
            if first == nil { first = key }
            if touchedRecords.count < Self.touchedRecordLimit { touchedRecords.insert(key) }
        }
        return first
    }

    /// Runs a statement, remembering a failure.
    private func query(
        _ sql: String, _ parameters: [PostgresParameter] = [], operation: String, collection: String? = nil,
        record: Int64? = nil
    ) throws -> PostgresResult {
        try beginIfDeferred(first: record)
        try sendBatch()
        return try remembering { try connection.query(sql, parameters, operation: operation, collection: collection) }
    }

    func write(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws -> Bool {
        try Self.checkID(id, collection: collection, operation: Self.operation(mode))
        // Once the locks to remember are full, a record's lock key matters only to a deferred `BEGIN` (hashing
        // every id of a bulk insert costs).
        let record =
            deferredBegin != nil || touchedRecords.count < Self.touchedRecordLimit ? touch(collection, [id]) : nil
        // (A `COPY` in progress is the bulk path of a pipelined transaction.)
        try beginIfDeferred(first: record)
        let statements = try collectionSQL(collection)
        let keys = statements.keys
        if (connection.isPipelining || connection.isCopying) && mode != .update {
            // Nothing to wait for: the record goes out in the pipeline with others, and a failure is reported at
            // the next read or at the commit, naming this record (the server skips every statement after it).
            try queue(collection, id: id, body: body, mode: mode, keys: keys)
            return true
        }
        let result = try query(
            statements.write(mode),
            [.text(id), .bytes(body)] + keys.keys(of: body, id: id, in: collection).map(Self.keyParameter),
            operation: Self.operation(mode), collection: collection, record: record)
        return mode != .update || result.changedRows > 0
    }

    /// The key columns of a collection, read from the engine's cache or the catalog once per session (the chunk
    /// being gathered goes out first, since a catalog read cannot run inside a `COPY`).
    func keyColumns(_ collection: String) throws -> PostgresKeyColumns { try collectionSQL(collection).keys }

    /// The key columns of a collection with its statements, as ``keyColumns(_:)`` reads them.
    func collectionSQL(_ collection: String) throws -> PostgresCollectionSQL {
        if let known = knownKeyColumns[collection] { return known }
        try sendBatch()
        let statements = try remembering { try engine.collectionSQL(collection, on: connection) }
        knownKeyColumns[collection] = statements
        return statements
    }

    /// Forgets the key columns this session and its engine know (after adding or dropping one).
    func forgetKeyColumns() {
        knownKeyColumns = [:]
        engine.forgetKeyColumns()
    }

    /// A key as a `bytea` parameter, in the binary format (neither side encodes it as hex).
    static func keyParameter(_ key: [UInt8]) -> PostgresParameter { .binary(key) }

    /// The statement writing one record: `$1` is the id, `$2` the JSON body, `$3`… its keys.
    static func writeSQL(_ collection: String, mode: RecordWriteMode, keys: PostgresKeyColumns)
        -> (sql: String, operation: String)
    {
        let columns = keys.columns
        let values = columns.indices.map { ", $\($0 + 3)::bytea" }.joined()
        let insert =
            "INSERT INTO c_\(collection) (id, body\(keys.columnList)) VALUES ($1::text, $2::jsonb\(values))"
        switch mode {
        case .insert: return (insert, operation(mode))
        case .upsert:
            let updates = columns.map { ", \($0) = excluded.\($0)" }.joined()
            return (insert + " ON CONFLICT (id) DO UPDATE SET body = excluded.body" + updates, operation(mode))
        case .update:
            let updates = columns.indices.map { ", \(columns[$0]) = $\($0 + 3)::bytea" }.joined()
            return (
                "UPDATE c_\(collection) SET body = $2::jsonb\(updates) WHERE id = $1::text AND "
                    + keys.unchangedCondition(collection), operation(mode)
            )
        }
    }

    /// What a write does, for errors.
    static func operation(_ mode: RecordWriteMode) -> String {
        switch mode {
        case .insert: "insert"
        case .upsert: "upsert"
        case .update: "update"
        }
    }

    /// Refuses an id PostgreSQL's `text` cannot hold (U+0000), which libpq would otherwise cut short at the NUL.
    static func checkID(_ id: String, collection: String, operation: String) throws {
        guard id.utf8.contains(0) else { return }
        var error = StorageError(
            .invalidArgument, "the id contains U+0000 (NUL), which PostgreSQL text cannot hold", tier: .records,
            key: id, recovery: "Use ids without NUL characters")
        error.collection = collection
        error.operation = operation
        throw error
    }

    /// Says "a record with this id already exists" for an insert that hit the id's primary key.
    static func explain(_ error: StorageError) -> StorageError {
        guard error.code == .constraintViolation, error.operation == "insert", let collection = error.collection,
            error.postgres?.constraint == "c_\(collection)_pkey"
        else { return error }
        var explained = error
        explained.message = "a record with this id already exists [SQLSTATE 23505]"
        explained.recovery = "Use upsert to replace it, or update"
        return explained
    }

    func body<T>(_ collection: String, id: String, _ decode: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        // No record has an id PostgreSQL's text cannot hold (writes refuse it).
        guard !id.utf8.contains(0) else { return nil }
        let record = touch(collection, [id])
        let result = try query(
            Self.getSQL(collection), [.text(id)], operation: "get", collection: collection, record: record)
        guard result.rowCount > 0 else { return nil }
        return try result.withBytes(0, 0, decode)
    }

    /// The statement reading one record's body: `$1` is the id.
    static func getSQL(_ collection: String) -> String {
        // Concatenated: an interpolation cost a point get several times as many instructions.
        "SELECT body FROM c_" + collection + " WHERE id = $1::text"
    }

    func select(_ collection: String, _ query: Query, _ row: (String, UnsafeRawBufferPointer) throws -> Void) throws {
        var builder = PostgresSQL(bytewiseText: bytewise, keys: try keyColumns(collection))
        let sql = builder.select(query, collection: collection)
        let result = try self.query(sql, builder.parameters, operation: "query", collection: collection)
        for index in 0..<result.rowCount {
            let id = result.text(index, 0)
            try result.withBytes(index, 1) { try row(id, $0) }
        }
    }

    func page(
        _ collection: String, after: String?, limit: Int, _ row: (String, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let result =
            try after.map {
                try query(
                    "SELECT id, body FROM c_\(collection) WHERE id > $1::text ORDER BY id LIMIT $2::bigint",
                    [.text($0), .text(String(limit))], operation: "export", collection: collection)
            }
            ?? query(
                "SELECT id, body FROM c_\(collection) ORDER BY id LIMIT $1::bigint", [.text(String(limit))],
                operation: "export", collection: collection)
        for index in 0..<result.rowCount {
            let id = result.text(index, 0)
            try result.withBytes(index, 1) { try row(id, $0) }
        }
    }

    func ids(_ collection: String, matching predicate: StrataRecords.Predicate) throws -> [String] {
        var builder = PostgresSQL(bytewiseText: bytewise, keys: try keyColumns(collection))
        let sql = builder.select(Query(predicate), collection: collection, columns: "id")
        let result = try query(sql, builder.parameters, operation: "query", collection: collection)
        return (0..<result.rowCount).map { result.text($0, 0) }
    }

    func count(_ collection: String, matching predicate: StrataRecords.Predicate) throws -> Int {
        var builder = PostgresSQL(bytewiseText: bytewise, keys: try keyColumns(collection))
        let condition = builder.condition(predicate)
        let result = try query(
            "SELECT count(*) FROM c_\(collection) WHERE \(condition)", builder.parameters, operation: "count",
            collection: collection)
        return Int(result.text(0, 0)) ?? 0
    }

    func aggregate(
        _ collection: String, _ aggregate: RecordAggregate, of field: Field, matching predicate: StrataRecords.Predicate
    )
        throws -> QueryValue?
    {
        var builder = PostgresSQL(bytewiseText: bytewise, keys: try keyColumns(collection))
        let condition = builder.condition(predicate)
        let value = PostgresSQL.value(field)
        switch aggregate {
        case .min, .max:
            // jsonb has no min/max aggregates; the first value in index order is the same thing.
            let order = builder.orderValue(field)
            let result = try query(
                "SELECT \(value) FROM c_\(collection) WHERE (\(condition)) AND NOT (\(builder.isMissing(field))) ORDER BY \(order) \(aggregate == .min ? "ASC" : "DESC") LIMIT 1",
                builder.parameters, operation: aggregate.rawValue, collection: collection)
            guard result.rowCount > 0 else { return nil }
            return try result.withBytes(0, 0) { try PostgresSQL.queryValue(fromJSON: $0) }
        case .sum:
            // As SQLite's sum(): an integer when every value is one, a real otherwise.
            let result = try query(
                "SELECT sum((\(value))::numeric), bool_and(scale((\(value))::numeric) = 0) FROM c_\(collection) WHERE (\(condition)) AND jsonb_typeof(\(value)) = 'number'",
                builder.parameters, operation: "sum", collection: collection)
            guard result.rowCount > 0, !result.isNull(0, 0) else { return nil }
            let text = result.text(0, 0)
            if result.text(0, 1) == "t", let integer = Int64(text) { return .integer(integer) }
            return Double(text).map { .real($0) }
        }
    }

    func delete(_ collection: String, ids: [String]) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        touch(collection, ids)
        let result = try query(
            "DELETE FROM c_\(collection) WHERE id = ANY($1::text[])", [.text(PostgresSQL.arrayLiteral(ids))],
            operation: "delete", collection: collection)
        return result.changedRows
    }

    func setNull(_ collection: String, field: Field, ids: [String]) throws {
        guard !ids.isEmpty else { return }
        try changeBodies(
            collection, fields: [field], set: "jsonb_set(body, \(PostgresSQL.path(field)), 'null'::jsonb, true)",
            where: "id = ANY($1::text[])", [.text(PostgresSQL.arrayLiteral(ids))], operation: "delete (nullify)")
    }

    /// Runs an `UPDATE` that changes bodies on the server (`SET body = <set> WHERE <where>`, guarded by
    /// ``PostgresKeyColumns/unchangedCondition(_:)``), then, if it changes `fields` that hold or are held by an
    /// indexed field, computes the changed rows' keys again (the statement returns their new bodies).
    private func changeBodies(
        _ collection: String, fields: [Field], set body: String, where condition: String = "TRUE",
        _ parameters: [PostgresParameter] = [], operation: String
    ) throws {
        let all = try keyColumns(collection)
        let sql =
            "UPDATE c_\(collection) SET body = \(body) WHERE \(condition) AND \(all.unchangedCondition(collection))"
        let keys = all.overlapping(fields)
        guard !keys.isEmpty else {
            _ = try query(sql, parameters, operation: operation, collection: collection)
            return
        }
        let changed = try query(sql + " RETURNING id, body", parameters, operation: operation, collection: collection)
        try remembering {
            try Self.updateKeys(keys, of: changed, in: collection, on: connection, operation: operation)
        }
    }

    // MARK: Schema

    func schemaVersion() throws -> Int {
        let result = try query("SELECT value FROM strata_meta WHERE key = 'schema_version'", operation: "migrate")
        return result.rowCount > 0 ? Int(result.text(0, 0)) ?? 0 : 0
    }

    func setSchemaVersion(_ version: Int) throws {
        _ = try query(
            "INSERT INTO strata_meta (key, value) VALUES ('schema_version', $1::text) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(String(version))], operation: "migrate")
    }

    func createCollection(_ name: String) throws {
        _ = try query(Self.createCollectionSQL(name), operation: "create collection", collection: name)
    }

    /// The statement creating a collection's table, if it is missing.
    static func createCollectionSQL(_ name: String) -> String {
        #"CREATE TABLE IF NOT EXISTS c_\#(name) (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)"#
    }

    func createIndex(_ index: Index, in collection: String) throws {
        try beginIfDeferred(first: nil)
        try sendBatch()
        try remembering {
            let keyed = try bytewise && Self.addKeyColumn(index.field, to: collection, on: connection)
            forgetKeyColumns()
            try connection.execute(
                Self.createIndexSQL(index, in: collection, keyed: keyed), operation: "create index",
                collection: collection)
            try Self.checkIndexName(index, in: collection, on: connection)
        }
    }

    func dropIndex(_ index: Index, in collection: String) throws {
        try beginIfDeferred(first: nil)
        try sendBatch()
        try remembering { try Self.dropIndex(index, in: collection, on: connection) }
        forgetKeyColumns()
    }

    func addField(_ collection: String, _ field: Field, value: JSONValue) throws {
        try changeBodies(
            collection, fields: [field], set: "jsonb_set(body, \(PostgresSQL.path(field)), $1::jsonb, true)",
            where: "body #> \(PostgresSQL.path(field)) IS NULL", [.text(value.description)], operation: "migrate")
    }

    func renameField(_ collection: String, from: Field, to: Field) throws {
        try changeBodies(
            collection, fields: [from, to],
            set:
                "jsonb_set(body #- \(PostgresSQL.path(from)), \(PostgresSQL.path(to)), body #> \(PostgresSQL.path(from)), true)",
            where: "body #> \(PostgresSQL.path(from)) IS NOT NULL", operation: "migrate")
    }

    func removeField(_ collection: String, _ field: Field) throws {
        try changeBodies(
            collection, fields: [field], set: "body #- \(PostgresSQL.path(field))", operation: "migrate")
    }
}
