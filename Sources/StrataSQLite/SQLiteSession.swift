import Foundation
import StrataCore
import StrataRecords

/// The SQL of every record operation on one SQLite connection.
struct SQLiteSession: RecordSession {
    let connection: SQLiteConnection

    func write(_ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode) throws -> Bool {
        let statement: SQLiteStatement
        switch mode {
        case .insert:
            statement = try connection.statement(.insert, collection: collection, operation: "insert") {
                "INSERT INTO c_\(collection) (id, body) VALUES (?, ?)"
            }
        case .upsert:
            statement = try connection.statement(.upsert, collection: collection, operation: "upsert") {
                "INSERT INTO c_\(collection) (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
        case .update:
            statement = try connection.statement(.update, collection: collection, operation: "update") {
                "UPDATE c_\(collection) SET body = ?2 WHERE id = ?1"
            }
        }
        statement.bindKey(id, at: 1)
        // The body is read in place, and unbound before this returns.
        statement.bindTextInPlace(body, at: 2)
        defer {
            statement.finish()
            statement.unbind(2)
        }
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
        let statement = try connection.statement(.get, collection: collection, operation: "get") {
            "SELECT body FROM c_\(collection) WHERE id = ?"
        }
        defer { statement.finish() }
        statement.bindKey(id, at: 1)
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

    func ids(_ collection: String, matching predicate: StrataRecords.Predicate) throws -> [String] {
        var parameters: [SQLiteValue] = []
        let sql = Self.selectSQL(Query(predicate), collection: collection, parameters: &parameters, columns: "id")
        let statement = try connection.statement(sql, operation: "query", collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        var ids: [String] = []
        while try statement.step() { ids.append(statement.text(0)) }
        return ids
    }

    func count(_ collection: String, matching predicate: StrataRecords.Predicate) throws -> Int {
        var parameters: [SQLiteValue] = []
        let statement = try connection.statement(
            "SELECT count(*) FROM c_\(collection) WHERE " + predicate.sqliteSQL(&parameters), operation: "count",
            collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    func aggregate(
        _ collection: String, _ aggregate: RecordAggregate, of field: Field, matching predicate: StrataRecords.Predicate
    )
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
        let head = "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX"
        let target = "\(index.name(in: collection)) ON c_\(collection)(\(index.field.sqliteSQL))"
        let definition = head + " " + target
        try connection.execute(
            head + " IF NOT EXISTS " + target, operation: "create index", collection: collection)
        // `IF NOT EXISTS` also skips a name that another index holds: the index there must be this one.
        let statement = try connection.statement(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ? COLLATE NOCASE", operation: "create index",
            collection: collection)
        defer { statement.reset() }
        statement.bind(.text(index.name(in: collection)), at: 1)
        guard try statement.step() else { return }
        let existing = statement.text(0)
        guard Self.sameDefinition(existing, definition) else { throw index.nameTaken(in: collection, holder: existing) }
    }

    /// Whether two `CREATE INDEX` statements define one index: equal but for white space, and for the case of
    /// what comes before the first quote (keywords and names, which SQL compares without case; the JSON path in
    /// the quotes is compared exactly, as `Age` and `age` are different members).
    static func sameDefinition(_ first: String, _ second: String) -> Bool {
        func normalized(_ sql: String) -> (String, Substring) {
            let compact = String(sql.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
            let quote = compact.firstIndex(of: "'") ?? compact.endIndex
            return (compact[..<quote].lowercased(), compact[quote...])
        }
        return normalized(first) == normalized(second)
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
