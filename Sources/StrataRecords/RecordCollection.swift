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
    /// The fields a query may name: `R`'s, learned when the collection was opened.
    let fields: RecordFields
    /// `R` when it reads itself (``RecordDecodable``), found once when the collection was opened: asked of the
    /// run time for every record, it was a search of its conformance tables each time.
    @usableFromInline let reader: (any RecordDecodable.Type)?

    // MARK: Writes (each in its own transaction)

    /// Inserts a new record.
    /// - Throws: ``/StrataCore/StorageError`` `.constraintViolation` when a record with this id (or a unique field's
    ///   value) exists.
    public func insert(_ record: R) throws { try writeOne(record, mode: .insert) }

    /// Inserts several records in one transaction: all or none.
    // Inlinable so that the loop is specialized for the caller's sequence and record type: unspecialized, taking
    // each record out of the sequence went through its witness table and a coroutine frame.
    @inlinable
    public func insert(contentsOf records: some Sequence<R>) throws {
        try store.write { transaction in
            let bound = transaction(self)
            for record in records { try bound.insert(record) }
        }
    }

    /// Inserts or replaces a record by id.
    public func upsert(_ record: R) throws { try writeOne(record, mode: .upsert) }

    /// Replaces an existing record.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no record with its id.
    public func update(_ record: R) throws { try writeOne(record, mode: .update) }

    /// One record in a transaction of its own: the engine's single-statement path.
    private func writeOne(_ record: R, mode: RecordWriteMode) throws {
        let key = record.id.recordKey
        let found: Bool
        do {
            found = try RecordCoder.encode(record, collection: name, with: StreamingJSONEncoder()) {
                try store.engine.writeOne(name, id: key, body: $0, mode: mode)
            }
        } catch var error as StorageError where error.operation != "encode" {
            error.key = key
            throw error
        }
        guard found else { throw TransactionalCollection<R>.notFound(key, collection: name) }
        store.observation.committed([name])
    }

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
    // Inlinable so that it is specialized for the caller's record type: unspecialized, every call asks the runtime
    // for `Optional<R>`'s metadata, a hash lookup that cost a tenth of a point get.
    @inlinable
    public func get(id: R.ID) throws -> R? {
        let key = id.recordKey
        var record: R?
        _ = try store.engine.readBody(name, id: key) {
            record = try RecordCoder.decode(R.self, reader: reader, from: $0, collection: name, id: key)
        }
        return record
    }

    /// The records with these ids that exist, in the order of `ids`.
    public func get(ids: [R.ID]) throws -> [R] {
        try store.read { session in
            try ids.compactMap { id in
                let key = id.recordKey
                return try session.body(name, id: key) {
                    try RecordCoder.decode(R.self, reader: reader, from: $0, collection: name, id: key)
                }
            }
        }
    }

    /// The records matching a query.
    // Inlinable so that the loop over the rows is specialized for the caller's record type: unspecialized, each
    // row's record was copied into the array through its value witnesses and runtime metadata lookups.
    @inlinable
    public func fetch(_ query: Query = Query()) throws -> [R] {
        try checkFields(of: query)
        return try store.readOne {
            try RecordCollectionReads.fetch(R.self, reader: reader, query, collection: name, on: $0)
        }
    }

    /// Checks the field paths a query filters and sorts on.
    @usableFromInline
    func checkFields(of query: Query) throws {
        try check(query.predicate.fields + query.sort.map(\.field), operation: "query")
    }

    /// Checks that field paths are well formed and name fields of `R`.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the field and the nearest one `R` has.
    func check(_ named: [Field], operation: String) throws {
        try RecordStore.check(named, collection: name, operation: operation)
        try fields.check(named, collection: name, operation: operation)
    }

    /// The records matching a predicate, in id order.
    @inlinable
    public func fetch(where predicate: Predicate) throws -> [R] { try fetch(Query(predicate)) }

    /// How many records match.
    public func count(where predicate: Predicate = .all) throws -> Int {
        try check(predicate.fields, operation: "count")
        return try store.readOne { try $0.count(name, matching: predicate) }
    }

    /// The smallest value of a field among matching records, or `nil` when none has one.
    public func min(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate(.min, field, predicate)
    }

    /// The largest value of a field among matching records.
    public func max(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate(.max, field, predicate)
    }

    /// The sum of a numeric field over matching records (`nil` when none has one).
    public func sum(_ field: Field, where predicate: Predicate = .all) throws -> QueryValue? {
        try aggregate(.sum, field, predicate)
    }

    func aggregate(_ function: RecordAggregate, _ field: Field, _ predicate: Predicate) throws -> QueryValue? {
        try check(predicate.fields + [field], operation: function.rawValue)
        return try store.readOne { try $0.aggregate(name, function, of: field, matching: predicate) }
    }
}

/// A transaction in progress, handed to ``RecordStore/write(_:)``'s closure. Use it only inside the closure.
public final class RecordTransaction {
    let store: RecordStore
    let session: any RecordSession
    var changedCollections: Set<String> = []
    /// The collection noted last by ``noteChanged(_:)``, so that a run of writes to one does not hash its name
    /// each time.
    private var lastChanged: String?
    var isFinished = false
    /// The encoder of this transaction's writes: its buffer is reused from one record to the next.
    private(set) lazy var encoder = StreamingJSONEncoder()

    init(store: RecordStore, session: any RecordSession) {
        self.store = store
        self.session = session
    }

    /// The collection, bound to this transaction.
    public func callAsFunction<R: Record>(_ collection: RecordCollection<R>) -> TransactionalCollection<R> {
        TransactionalCollection(transaction: self, collection: collection)
    }

    /// Notes that `collection` changed in this transaction (observers hear of it at the commit).
    func noteChanged(_ collection: String) {
        guard collection != lastChanged else { return }
        changedCollections.insert(collection)
        lastChanged = collection
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
    var session: any RecordSession { transaction.session }

    /// Inserts a new record. See ``RecordCollection/insert(_:)``.
    public func insert(_ record: R) throws { try write(record, mode: .insert) }

    /// Inserts or replaces a record.
    public func upsert(_ record: R) throws { try write(record, mode: .upsert) }

    /// Replaces an existing record.
    public func update(_ record: R) throws { try write(record, mode: .update) }

    private func write(_ record: R, mode: RecordWriteMode) throws {
        try transaction.checkOpen(name)
        let key = record.id.recordKey
        let found: Bool
        do {
            found = try RecordCoder.encode(record, collection: name, with: transaction.encoder) {
                try session.write(name, id: key, body: $0, mode: mode)
            }
        } catch var error as StorageError where error.operation != "encode" {
            // An engine that sends writes without waiting for their answers (PostgreSQL's pipeline) may report
            // an earlier record's failure here, already naming that record.
            if error.key == nil { error.key = key }
            throw error
        }
        guard found else { throw Self.notFound(key, collection: name) }
        transaction.noteChanged(name)
    }

    static func notFound(_ key: String, collection: String) -> StorageError {
        StorageError(
            .notFound, "there is no record with this id to update", tier: .records, key: key, collection: collection,
            operation: "update", recovery: "Insert it, or use upsert")
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
        try collection.check(predicate.fields, operation: "delete")
        let ids = try session.ids(name, matching: predicate)
        return try transaction.store.delete(ids: ids, from: name, transaction: transaction)
    }

    /// The record with this id, as this transaction sees it.
    public func get(id: R.ID) throws -> R? {
        let key = id.recordKey
        return try session.body(name, id: key) {
            try RecordCoder.decode(R.self, reader: collection.reader, from: $0, collection: name, id: key)
        }
    }

    /// The matching records, as this transaction sees them.
    public func fetch(_ query: Query = Query()) throws -> [R] {
        try collection.checkFields(of: query)
        return try RecordCollectionReads.fetch(R.self, reader: collection.reader, query, collection: name, on: session)
    }

    /// How many records match, as this transaction sees them.
    public func count(where predicate: Predicate = .all) throws -> Int {
        try collection.check(predicate.fields, operation: "count")
        return try session.count(name, matching: predicate)
    }
}

/// Reads shared by store-level and transaction-level calls.
@usableFromInline
enum RecordCollectionReads {
    @inlinable
    static func fetch<R: Record>(
        _ type: R.Type, reader: (any RecordDecodable.Type)?, _ query: Query, collection: String,
        on session: any RecordSession
    ) throws -> [R] {
        var records: [R] = []
        try session.select(collection, query) { id, bytes in
            records.append(try RecordCoder.decode(R.self, reader: reader, from: bytes, collection: collection, id: id))
        }
        return records
    }
}
