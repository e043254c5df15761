import Foundation
import StrataCore
import StrataRecords

/// The SQL of every record operation on one PostgreSQL connection.
final class PostgresSession: RecordSession {
    let connection: PostgresConnection
    unowned let engine: PostgresRecordEngine
    /// The first error a statement of this session threw (the transaction is then aborted on the server).
    private(set) var failure: StorageError?

    init(connection: PostgresConnection, engine: PostgresRecordEngine) {
        self.connection = connection
        self.engine = engine
    }

    /// A statement that failed inside the transaction leaves it aborted, and COMMIT would then quietly roll
    /// back: this reports the failure instead (the closure may have caught it).
    func throwIfAborted() throws {
        guard connection.transactionFailed else { return }
        throw failure
            ?? StorageError(
                .io, "the transaction was aborted by an earlier error", tier: .records, path: connection.location)
    }

    private var bytewise: Bool { engine.sortsTextBytewise }

    /// Runs a statement, remembering a failure.
    private func query(
        _ sql: String, _ parameters: [PostgresParameter] = [], operation: String, collection: String? = nil
    ) throws -> PostgresResult {
        do {
            return try connection.query(sql, parameters, operation: operation, collection: collection)
        } catch let error as StorageError {
            if failure == nil { failure = error }
            throw error
        }
    }

    func write(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws -> Bool {
        let (sql, operation) = Self.writeSQL(collection, mode: mode)
        do {
            let result = try query(sql, [.text(id), .bytes(body)], operation: operation, collection: collection)
            return mode != .update || result.changedRows > 0
        } catch let error as StorageError {
            throw Self.explain(error, collection: collection, mode: mode)
        }
    }

    /// The statement writing one record: `$1` is the id, `$2` the JSON body.
    static func writeSQL(_ collection: String, mode: RecordWriteMode) -> (sql: String, operation: String) {
        switch mode {
        case .insert: ("INSERT INTO c_\(collection) (id, body) VALUES ($1::text, $2::jsonb)", "insert")
        case .upsert:
            (
                "INSERT INTO c_\(collection) (id, body) VALUES ($1::text, $2::jsonb) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                "upsert"
            )
        case .update: ("UPDATE c_\(collection) SET body = $2::jsonb WHERE id = $1::text", "update")
        }
    }

    /// Says "a record with this id already exists" for an insert that hit the id's primary key.
    static func explain(_ error: StorageError, collection: String, mode: RecordWriteMode) -> StorageError {
        guard error.code == .constraintViolation, mode == .insert, error.message.contains("c_\(collection)_pkey")
        else { return error }
        var explained = error
        explained.message = "a record with this id already exists [SQLSTATE 23505]"
        explained.recovery = "Use upsert to replace it, or update"
        return explained
    }

    func body<T>(_ collection: String, id: String, _ decode: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        let result = try query(
            "SELECT body FROM c_\(collection) WHERE id = $1::text", [.text(id)], operation: "get",
            collection: collection)
        guard result.rowCount > 0 else { return nil }
        return try result.withBytes(0, 0, decode)
    }

    func select(_ collection: String, _ query: Query, _ row: (String, UnsafeRawBufferPointer) throws -> Void) throws {
        var builder = PostgresSQL(bytewiseText: bytewise)
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
        var builder = PostgresSQL(bytewiseText: bytewise)
        let sql = builder.select(Query(predicate), collection: collection, columns: "id")
        let result = try query(sql, builder.parameters, operation: "query", collection: collection)
        return (0..<result.rowCount).map { result.text($0, 0) }
    }

    func count(_ collection: String, matching predicate: StrataRecords.Predicate) throws -> Int {
        var builder = PostgresSQL(bytewiseText: bytewise)
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
        var builder = PostgresSQL(bytewiseText: bytewise)
        let condition = builder.condition(predicate)
        let value = PostgresSQL.value(field)
        switch aggregate {
        case .min, .max:
            // jsonb has no min/max aggregates; the first value in index order is the same thing.
            let result = try query(
                "SELECT \(value) FROM c_\(collection) WHERE (\(condition)) AND \(value) IS NOT NULL ORDER BY \(value) \(aggregate == .min ? "ASC" : "DESC") LIMIT 1",
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
        let result = try query(
            "DELETE FROM c_\(collection) WHERE id = ANY($1::text[])", [.text(PostgresSQL.arrayLiteral(ids))],
            operation: "delete", collection: collection)
        return result.changedRows
    }

    func setNull(_ collection: String, field: Field, ids: [String]) throws {
        guard !ids.isEmpty else { return }
        _ = try query(
            "UPDATE c_\(collection) SET body = jsonb_set(body, \(PostgresSQL.path(field)), 'null'::jsonb, true) WHERE id = ANY($1::text[])",
            [.text(PostgresSQL.arrayLiteral(ids))], operation: "delete (nullify)", collection: collection)
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
        _ = try query(
            #"CREATE TABLE IF NOT EXISTS c_\#(name) (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)"#,
            operation: "create collection", collection: name)
    }

    func createIndex(_ index: Index, in collection: String) throws {
        _ = try query(
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.name(in: collection)) ON c_\(collection) ((\(PostgresSQL.value(index.field))))",
            operation: "create index", collection: collection)
    }

    func dropIndex(_ index: Index, in collection: String) throws {
        _ = try query(
            "DROP INDEX IF EXISTS \(index.name(in: collection))", operation: "drop index", collection: collection)
    }

    func addField(_ collection: String, _ field: Field, value: JSONValue) throws {
        _ = try query(
            "UPDATE c_\(collection) SET body = jsonb_set(body, \(PostgresSQL.path(field)), $1::jsonb, true) WHERE body #> \(PostgresSQL.path(field)) IS NULL",
            [.text(value.description)], operation: "migrate", collection: collection)
    }

    func renameField(_ collection: String, from: Field, to: Field) throws {
        _ = try query(
            "UPDATE c_\(collection) SET body = jsonb_set(body #- \(PostgresSQL.path(from)), \(PostgresSQL.path(to)), body #> \(PostgresSQL.path(from)), true) WHERE body #> \(PostgresSQL.path(from)) IS NOT NULL",
            operation: "migrate", collection: collection)
    }

    func removeField(_ collection: String, _ field: Field) throws {
        _ = try query(
            "UPDATE c_\(collection) SET body = body #- \(PostgresSQL.path(field))", operation: "migrate",
            collection: collection)
    }
}

/// Compiles queries to PostgreSQL, collecting the bound parameters. Field paths have passed the store's checks
/// (names of letters, digits and `_`), so they can be written into the SQL; values never are.
struct PostgresSQL {
    var parameters: [PostgresParameter] = []
    /// Whether the database's collation is bytewise, so that a prefix can also be a range an index serves.
    let bytewiseText: Bool

    init(bytewiseText: Bool) { self.bytewiseText = bytewiseText }

    /// The field as `jsonb`, with JSON `null` read as SQL NULL (as SQLite's `json_extract` does): exactly the
    /// expression indexes are built on.
    static func value(_ field: Field) -> String {
        "NULLIF(body" + field.components.map { "->'\($0)'" }.joined() + ", 'null'::jsonb)"
    }

    /// The field as a `text[]` path literal for `#>`, `#-` and `jsonb_set`.
    static func path(_ field: Field) -> String { "'{" + field.components.joined(separator: ",") + "}'" }

    private mutating func bind(_ parameter: PostgresParameter) -> String {
        parameters.append(parameter)
        return "$\(parameters.count)"
    }

    private mutating func bindJSON(_ value: QueryValue) -> String {
        bind(.text(Self.json(value))) + "::jsonb"
    }

    static func json(_ value: QueryValue) -> String {
        switch value {
        case .integer(let number): String(number)
        case .real(let number): number.isFinite ? JSONValue.number(number).description : "null"
        case .text(let text): JSONValue.string(text).description
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    mutating func select(_ query: Query, collection: String, columns: String = "id, body") -> String {
        var sql = "SELECT \(columns) FROM c_\(collection) WHERE " + condition(query.predicate)
        // SQLite's order: NULLs first when ascending, last when descending.
        let order =
            query.sort.map { "\(Self.value($0.field)) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
            + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(bind(.text(String(Swift.max(0, limit)))))::bigint" }
        if query.offset > 0 { sql += " OFFSET \(bind(.text(String(query.offset))))::bigint" }
        return sql
    }

    mutating func condition(_ predicate: StrataRecords.Predicate) -> String {
        switch predicate {
        case .compare(let field, let comparison, .null):
            let value = Self.value(field)
            return comparison == .equal
                ? "\(value) IS NULL" : comparison == .notEqual ? "\(value) IS NOT NULL" : "FALSE"
        case .compare(let field, let comparison, let compared):
            let value = Self.value(field)
            let parameter = bindJSON(compared)
            switch comparison {
            case .equal: return "\(value) = \(parameter)"
            case .notEqual: return "\(value) <> \(parameter)"
            default:
                // jsonb orders across types (any boolean > any number); match only the compared value's type.
                return
                    "(\(value) \(comparison.rawValue) \(parameter) AND jsonb_typeof(\(value)) = jsonb_typeof(\(parameter)))"
            }
        case .oneOf(let field, let values):
            guard !values.isEmpty else { return "FALSE" }
            return "\(Self.value(field)) IN (\(values.map { bindJSON($0) }.joined(separator: ", ")))"
        case .prefix(let field, let prefix):
            let value = Self.value(field)
            let text = bind(.text(prefix))
            var sql = "(jsonb_typeof(\(value)) = 'string' AND starts_with(\(value) #>> '{}', \(text)::text)"
            if bytewiseText {
                // With bytewise text, the prefix is also a range of the index; U+10FFFF sorts last.
                sql +=
                    " AND \(value) >= \(bindJSON(.text(prefix))) AND \(value) < \(bindJSON(.text(prefix + "\u{10FFFF}")))"
            }
            return sql + ")"
        case .contains(let field, let text):
            let value = Self.value(field)
            let parameter = bind(.text(text))
            return
                "(CASE jsonb_typeof(\(value)) WHEN 'array' THEN \(value) @> jsonb_build_array(\(parameter)::text) ELSE strpos(\(value) #>> '{}', \(parameter)::text) > 0 END)"
        case .isNull(let field):
            return "\(Self.value(field)) IS NULL"
        case .and(let parts):
            return parts.isEmpty ? "TRUE" : "(" + parts.map { condition($0) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return parts.isEmpty ? "FALSE" : "(" + parts.map { condition($0) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (\(condition(inner)))"
        case .all:
            return "TRUE"
        }
    }

    /// A `text[]` literal: every element quoted, with `"` and `\` escaped.
    static func arrayLiteral(_ values: [String]) -> String {
        "{"
            + values.map { value in
                var quoted = "\""
                for scalar in value.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
                    quoted.unicodeScalars.append(scalar)
                }
                return quoted + "\""
            }.joined(separator: ",") + "}"
    }

    /// A `jsonb` value as PostgreSQL prints it, read back as a query value.
    static func queryValue(fromJSON bytes: UnsafeRawBufferPointer) throws -> QueryValue? {
        switch try JSONValue.parse(bytes) {
        case .null: nil
        case .bool(let flag): .bool(flag)
        case .integer(let number): .integer(number)
        case .number(let number): .real(number)
        case .string(let text): .text(text)
        case let other: .text(other.description)
        }
    }
}

/// The `strata_kv` table of a PostgreSQL store (values as `bytea`).
struct PostgresKeyValueTable: RecordKeyValueTable {
    let engine: PostgresRecordEngine

    private func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try engine.read(snapshot: false) { try body(($0 as! PostgresSession).connection) }
    }

    func put(_ value: [UInt8], for key: String, modified: Double) throws {
        _ = try run {
            try $0.query(
                "INSERT INTO strata_kv (key, value, modified) VALUES ($1::text, decode($2::text, 'hex'), $3::float8) ON CONFLICT (key) DO UPDATE SET value = excluded.value, modified = excluded.modified",
                [.text(key), .text(Hex.encode(value)), .text(String(modified))], operation: "put")
        }
    }

    func value(for key: String) throws -> [UInt8]? {
        try run { connection in
            let result = try connection.query(
                "SELECT encode(value, 'hex') FROM strata_kv WHERE key = $1::text", [.text(key)], operation: "get")
            guard result.rowCount > 0 else { return nil }
            guard let bytes = Hex.decode(result.text(0, 0)) else {
                throw StorageError(.corrupt, "the server sent a value that is not hex", tier: .records, key: key)
            }
            return bytes
        }
    }

    func remove(_ key: String) throws -> Bool {
        try run {
            try $0.query("DELETE FROM strata_kv WHERE key = $1::text", [.text(key)], operation: "delete").changedRows
                > 0
        }
    }

    func keys() throws -> [String] {
        try run { connection in
            let result = try connection.query("SELECT key FROM strata_kv ORDER BY key", operation: "keys")
            return (0..<result.rowCount).map { result.text($0, 0) }
        }
    }

    func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? {
        try run { connection in
            let result = try connection.query(
                "SELECT octet_length(value), modified FROM strata_kv WHERE key = $1::text", [.text(key)],
                operation: "metadata")
            guard result.rowCount > 0 else { return nil }
            return (Int(result.text(0, 0)) ?? 0, Double(result.text(0, 1)) ?? 0)
        }
    }
}
