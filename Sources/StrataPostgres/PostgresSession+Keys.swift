import StrataCore
import StrataPostgresClient
import StrataRecords

/// The statements that create, fill and drop key columns (``PostgresKeyColumns``), and the indexes on them. They
/// run on a connection in a transaction holding the store's schema lock: a migration's, the store's opening (to
/// upgrade a store of format version 1), or a restore's.
extension PostgresSession {
    /// The statement creating an index, if it is missing: on the field's key column when `keyed` (a unique one
    /// partial, so that the records without the field, whose keys are all empty, never clash), else on the
    /// field's `jsonb` value.
    static func createIndexSQL(_ index: Index, in collection: String, keyed: Bool) -> String {
        let head =
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.name(in: collection)) ON c_\(collection)"
        guard keyed else { return head + " ((\(PostgresSQL.value(index.field))))" }
        let column = PostgresKeyColumns.column(index.field)
        return head + " (\(column))" + (index.isUnique ? " WHERE \(column) <> ''" : "")
    }

    /// Checks that the index holding `index`'s name is `index`: `CREATE INDEX IF NOT EXISTS` also skips a name that
    /// another index holds, on this table or another one.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` (``/StrataRecords/Index/nameTaken(in:holder:)``).
    static func checkIndexName(_ index: Index, in collection: String, on connection: PostgresConnection) throws {
        let name = index.name(in: collection).lowercased()
        let found = try connection.query(
            "SELECT tablename::text, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1::text",
            [.text(name)], operation: "create index", collection: collection)
        guard found.rowCount > 0 else { return }
        let definition = found.text(0, 1)
        let keys = try PostgresKeyColumns.read(collection, on: connection).fields.map {
            (PostgresKeyColumns.column($0).lowercased(), $0.path)
        }
        // The table's name as the server keeps it: folded to lower case and cut at 63 bytes (a collection's name
        // may have 64), as the index's own name is kept within them.
        let table = String(decoding: "c_\(collection)".lowercased().utf8.prefix(63), as: UTF8.self)
        guard found.text(0, 0) == table,
            PostgresExport.index(
                named: name, definition: definition, in: collection,
                keys: Dictionary(keys, uniquingKeysWith: { first, _ in first })) == index
        else { throw index.nameTaken(in: collection, holder: definition) }
    }

    /// Adds the key column of `field` to a collection's table, unless it has one: the column is added, filled from
    /// the client, then made `NOT NULL` (so that a process that writes without it fails instead of storing a row
    /// the index misses). Returns whether the field has its column: not when another field's column has its name
    /// (`a.b` and `a__b` give one name, and PostgreSQL folds `Age` to `age`); such a field is indexed and queried
    /// on its `jsonb` value, as on a database that does not sort text bytewise.
    @discardableResult
    static func addKeyColumn(_ field: Field, to collection: String, on connection: PostgresConnection) throws -> Bool {
        let existing = try PostgresKeyColumns.read(collection, on: connection)
        guard !existing.fields.contains(field) else { return true }
        let column = PostgresKeyColumns.column(field)
        guard !existing.columns.contains(where: { $0.lowercased() == column.lowercased() }) else { return false }
        try connection.execute(
            "ALTER TABLE c_\(collection) ADD COLUMN \(column) bytea; COMMENT ON COLUMN c_\(collection).\(column) IS '\(field.path)'",
            operation: "create index", collection: collection)
        try fillKeys(PostgresKeyColumns([field]), in: collection, on: connection, operation: "create index")
        try connection.execute(
            "ALTER TABLE c_\(collection) ALTER COLUMN \(column) SET NOT NULL", operation: "create index",
            collection: collection)
        return true
    }

    /// Drops an index, and its field's key column once no index of the store reads it.
    static func dropIndex(_ index: Index, in collection: String, on connection: PostgresConnection) throws {
        let others = [Index.field(index.field), Index.unique(index.field)].filter { $0 != index }
        try connection.execute(
            "DROP INDEX IF EXISTS \(index.name(in: collection))", operation: "drop index", collection: collection)
        let remaining = try connection.query(
            "SELECT to_regclass($1::text) IS NULL", [.text(others[0].name(in: collection))],
            operation: "drop index", collection: collection)
        guard remaining.text(0, 0) == "t" else { return }
        try connection.execute(
            "ALTER TABLE c_\(collection) DROP COLUMN IF EXISTS \(PostgresKeyColumns.column(index.field))",
            operation: "drop index", collection: collection)
    }

    /// Computes the keys of every record of a collection for `keys`, a page of records at a time.
    static func fillKeys(
        _ keys: PostgresKeyColumns, in collection: String, on connection: PostgresConnection, operation: String
    ) throws {
        var after = ""
        while true {
            let page = try connection.query(
                "SELECT id, body FROM c_\(collection) WHERE id > $1::text ORDER BY id LIMIT \(fillPageSize)",
                [.text(after)], operation: operation, collection: collection)
            try updateKeys(keys, of: page, in: collection, on: connection, operation: operation)
            guard page.rowCount == fillPageSize else { return }
            after = page.text(page.rowCount - 1, 0)
        }
    }

    /// Records whose keys one statement sets.
    static let fillPageSize = 1000

    /// Sets the keys of the records in `rows` (the id in column 0, the body in column 1), in one statement.
    static func updateKeys(
        _ keys: PostgresKeyColumns, of rows: PostgresResult, in collection: String, on connection: PostgresConnection,
        operation: String
    ) throws {
        guard rows.rowCount > 0, !keys.isEmpty else { return }
        var ids: [String] = []
        var columns = [[String]](repeating: [], count: keys.count)
        for row in 0..<rows.rowCount {
            let id = rows.text(row, 0)
            ids.append(id)
            let values = try rows.withBytes(row, 1) { try keys.keys(of: $0, id: id, in: collection) }
            for (column, key) in values.enumerated() {
                columns[column].append(String(decoding: PostgresIndexKey.hex(key), as: UTF8.self))
            }
        }
        let names = keys.columns
        let sets = names.map { "\($0) = u.\($0)" }.joined(separator: ", ")
        let arrays = names.indices.map { ", $\($0 + 2)::bytea[]" }.joined()
        _ = try connection.query(
            "UPDATE c_\(collection) SET \(sets) FROM unnest($1::text[]\(arrays)) AS u(id\(keys.columnList)) WHERE c_\(collection).id = u.id",
            [.text(PostgresSQL.arrayLiteral(ids))] + columns.map { .text(PostgresSQL.arrayLiteral($0)) },
            operation: operation, collection: collection)
    }
}
