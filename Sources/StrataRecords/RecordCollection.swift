import Foundation
import StrataCore

/// A typed collection of records in a ``RecordStore``. Cheap to copy; every method is safe from any thread.
///
/// Each write method outside ``RecordStore/write(_:)`` is its own transaction; inside one, use `tx(collection)`.
public struct RecordCollection<R: Record>: Sendable where R.ID: RecordIdentifier {
    /// The store.
    public let store: RecordStore
    /// The collection's name.
    public let name: String

    // MARK: Writes (each in its own transaction)

    /// Inserts a new record.
    /// - Throws: ``StorageError`` `.constraintViolation` when a record with this id (or a unique field's value)
    ///   exists.
    public func insert(_ record: R) throws { try store.write { try $0(self).insert(record) } }

    /// Inserts several records in one transaction: all or none.
    public func insert(contentsOf records: some Sequence<R>) throws {
        try store.write { transaction in
            let bound = transaction(self)
            for record in records { try bound.insert(record) }
        }
    }

    /// Inserts or replaces a record by id.
    public func upsert(_ record: R) throws { try store.write { try $0(self).upsert(record) } }

    /// Replaces an existing record.
    /// - Throws: ``StorageError`` `.notFound` when there is no record with its id.
    public func update(_ record: R) throws { try store.write { try $0(self).update(record) } }

    /// Deletes a record, applying the delete rules of relations that point at this collection.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(id: R.ID) throws -> Bool { try store.write { try $0(self).delete(id: id) } }

    /// Deletes every record matching `predicate`, applying relations' delete rules.
    /// - Returns: How many were deleted.
    @discardableResult
    public func delete(where predicate: Predicate) throws -> Int {
        try store.write { try $0(self).delete(where: predicate) }
    }

    // MARK: Reads

    /// The record with this id, or `nil`.
    public func get(id: R.ID) throws -> R? {
        try store.readOne { try RecordCollectionSQL.get(R.self, id: id.recordKey, collection: name, on: $0) }
    }

    /// The records with these ids that exist, in the order of `ids`.
    public func get(ids: [R.ID]) throws -> [R] {
        try store.read { connection in
            try ids.compactMap {
                try RecordCollectionSQL.get(R.self, id: $0.recordKey, collection: name, on: connection)
            }
        }
    }

    /// The records matching a query.
    public func fetch(_ query: Query = Query()) throws -> [R] {
        try store.readOne { try RecordCollectionSQL.fetch(R.self, query, collection: name, on: $0) }
    }

    /// The records matching a predicate, in id order.
    public func fetch(where predicate: Predicate) throws -> [R] { try fetch(Query(predicate)) }

    /// How many records match.
    public func count(where predicate: Predicate = .all) throws -> Int {
        try store.readOne { try RecordCollectionSQL.count(predicate, collection: name, on: $0) }
    }

    /// The smallest value of a field among matching records, or `nil` when none has one.
    public func min(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate("min", field, predicate)
    }

    /// The largest value of a field among matching records.
    public func max(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate("max", field, predicate)
    }

    /// The sum of a numeric field over matching records (`nil` when none has one).
    public func sum(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate("sum", field, predicate)
    }

    func aggregate(_ function: String, _ field: Field, _ predicate: Predicate) throws -> QueryValue? {
        try store.readOne { try RecordCollectionSQL.aggregate(function, field, predicate, collection: name, on: $0) }
    }
}

/// A transaction in progress, handed to ``RecordStore/write(_:)``'s closure. Use it only inside the closure.
public final class RecordTransaction {
    let store: RecordStore
    let connection: SQLiteConnection
    var changedCollections: Set<String> = []
    var isFinished = false

    init(store: RecordStore, connection: SQLiteConnection) {
        self.store = store
        self.connection = connection
    }

    /// The collection, bound to this transaction.
    public func callAsFunction<R: Record>(_ collection: RecordCollection<R>) -> TransactionalCollection<R> {
        TransactionalCollection(transaction: self, collection: collection)
    }

    func checkOpen(_ collection: String) throws {
        guard !isFinished else {
            throw StorageError(
                .closed, "the transaction has ended; use it only inside write { }", tier: .records,
                collection: collection,
                operation: "write")
        }
    }
}

/// A collection bound to a transaction: the same operations as ``RecordCollection``, all committed together.
public struct TransactionalCollection<R: Record> where R.ID: RecordIdentifier {
    let transaction: RecordTransaction
    let collection: RecordCollection<R>
    var name: String { collection.name }
    var connection: SQLiteConnection { transaction.connection }

    /// Inserts a new record. See ``RecordCollection/insert(_:)``.
    public func insert(_ record: R) throws {
        try transaction.checkOpen(name)
        try RecordCollectionSQL.write(record, mode: .insert, collection: name, on: connection)
        transaction.changedCollections.insert(name)
    }

    /// Inserts or replaces a record.
    public func upsert(_ record: R) throws {
        try transaction.checkOpen(name)
        try RecordCollectionSQL.write(record, mode: .upsert, collection: name, on: connection)
        transaction.changedCollections.insert(name)
    }

    /// Replaces an existing record.
    public func update(_ record: R) throws {
        try transaction.checkOpen(name)
        try RecordCollectionSQL.write(record, mode: .update, collection: name, on: connection)
        transaction.changedCollections.insert(name)
    }

    /// Deletes a record, applying relations' delete rules.
    @discardableResult
    public func delete(id: R.ID) throws -> Bool {
        try transaction.checkOpen(name)
        let deleted = try transaction.store.delete(ids: [id.recordKey], from: name, transaction: transaction)
        return deleted > 0
    }

    /// Deletes the matching records, applying relations' delete rules.
    @discardableResult
    public func delete(where predicate: Predicate) throws -> Int {
        try transaction.checkOpen(name)
        let ids = try RecordCollectionSQL.ids(matching: predicate, collection: name, on: connection)
        return try transaction.store.delete(ids: ids, from: name, transaction: transaction)
    }

    /// The record with this id, as this transaction sees it.
    public func get(id: R.ID) throws -> R? {
        try RecordCollectionSQL.get(R.self, id: id.recordKey, collection: name, on: connection)
    }

    /// The matching records, as this transaction sees them.
    public func fetch(_ query: Query = Query()) throws -> [R] {
        try RecordCollectionSQL.fetch(R.self, query, collection: name, on: connection)
    }

    /// How many records match, as this transaction sees them.
    public func count(where predicate: Predicate = .all) throws -> Int {
        try RecordCollectionSQL.count(predicate, collection: name, on: connection)
    }
}

/// The SQL behind collections, shared by store-level and transaction-level calls.
enum RecordCollectionSQL {
    enum WriteMode { case insert, upsert, update }

    static func write<R: Record>(_ record: R, mode: WriteMode, collection: String, on connection: SQLiteConnection)
        throws
    where R.ID: RecordIdentifier {
        let key = record.id.recordKey
        let body = try RecordCoder.encode(record, collection: collection)
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
        statement.bind(.text(key), at: 1)
        body.withUnsafeBytes { statement.bindText($0, at: 2) }
        do {
            try statement.run()
        } catch var error as StorageError {
            error.key = key
            if error.code == .constraintViolation, mode == .insert, error.message.contains("c_\(collection).id") {
                error.message = "a record with this id already exists"
                error.recovery = "Use upsert to replace it, or update"
            }
            throw error
        }
        if mode == .update, connection.changes == 0 {
            throw StorageError(
                .notFound, "there is no record with this id to update", tier: .records, key: key,
                collection: collection,
                operation: "update", recovery: "Insert it, or use upsert")
        }
    }

    static func get<R: Record>(_ type: R.Type, id: String, collection: String, on connection: SQLiteConnection) throws
        -> R?
    {
        let statement = try connection.statement(
            "SELECT body FROM c_\(collection) WHERE id = ?", operation: "get", collection: collection)
        defer { statement.reset() }
        statement.bind(.text(id), at: 1)
        guard try statement.step() else { return nil }
        return try statement.withBytes(0) { try RecordCoder.decode(R.self, from: $0, collection: collection, id: id) }
    }

    static func select(
        _ query: Query, collection: String, parameters: inout [SQLiteValue], columns: String = "id, body"
    )
        throws -> String
    {
        for field in query.predicate.fields + query.sort.map(\.field) where !field.isValid {
            throw StorageError(
                .invalidArgument, "'\(field.path)' is not a field path (letters, digits, '_', dots)", tier: .records,
                collection: collection, operation: "query")
        }
        var sql = "SELECT \(columns) FROM c_\(collection) WHERE " + query.predicate.sql(&parameters)
        let order = query.sort.map { "\($0.field.sql) \($0.ascending ? "ASC" : "DESC")" } + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if query.limit != nil || query.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            parameters.append(.integer(Int64(query.limit ?? -1)))
            parameters.append(.integer(Int64(Swift.max(0, query.offset))))
        }
        return sql
    }

    static func fetch<R: Record>(_ type: R.Type, _ query: Query, collection: String, on connection: SQLiteConnection)
        throws
        -> [R]
    {
        var parameters: [SQLiteValue] = []
        let sql = try select(query, collection: collection, parameters: &parameters)
        let statement = try connection.statement(sql, operation: "query", collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        var records: [R] = []
        while try statement.step() {
            let id = statement.text(0)
            records.append(
                try statement.withBytes(1) { try RecordCoder.decode(R.self, from: $0, collection: collection, id: id) })
        }
        return records
    }

    static func ids(matching predicate: Predicate, collection: String, on connection: SQLiteConnection) throws
        -> [String]
    {
        var parameters: [SQLiteValue] = []
        let sql = try select(Query(predicate), collection: collection, parameters: &parameters, columns: "id")
        let statement = try connection.statement(sql, operation: "query", collection: collection)
        statement.bind(parameters)
        var ids: [String] = []
        while try statement.step() { ids.append(statement.text(0)) }
        return ids
    }

    static func count(_ predicate: Predicate, collection: String, on connection: SQLiteConnection) throws -> Int {
        for field in predicate.fields where !field.isValid {
            throw StorageError(
                .invalidArgument, "'\(field.path)' is not a field path", tier: .records, collection: collection,
                operation: "count")
        }
        var parameters: [SQLiteValue] = []
        let statement = try connection.statement(
            "SELECT count(*) FROM c_\(collection) WHERE " + predicate.sql(&parameters), operation: "count",
            collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    static func aggregate(
        _ function: String, _ field: Field, _ predicate: Predicate, collection: String, on connection: SQLiteConnection
    ) throws -> QueryValue? {
        for checked in predicate.fields + [field] where !checked.isValid {
            throw StorageError(
                .invalidArgument, "'\(checked.path)' is not a field path", tier: .records, collection: collection,
                operation: function)
        }
        var parameters: [SQLiteValue] = []
        let statement = try connection.statement(
            "SELECT \(function)(\(field.sql)) FROM c_\(collection) WHERE " + predicate.sql(&parameters),
            operation: function,
            collection: collection)
        defer { statement.reset() }
        statement.bind(parameters)
        _ = try statement.step()
        switch statement.value(0) {
        case .null: return nil
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .text(let text): return .text(text)
        case .blob: return nil
        }
    }
}
