import StrataCore
import Synchronization

/// A reference from records of one collection to records of another, by id, with what happens to the
/// referencing records when a referenced one is deleted.
public struct Relation: Sendable, Hashable {
    /// What deleting a referenced record does to the records that point at it.
    public enum DeleteRule: String, Sendable, Hashable {
        /// Delete them too (and apply their own relations' rules).
        case cascade
        /// Set their reference field to null.
        case nullify
        /// Refuse the delete while any exist (`.constraintViolation`).
        case deny
    }

    /// The collection whose records hold the reference.
    public var source: String
    /// The field holding the referenced record's id.
    public var field: Field
    /// The referenced collection.
    public var target: String
    /// What deleting a referenced record does.
    public var onDelete: DeleteRule
    /// Whether the referenced ids are integers in JSON.
    var integerIDs: Bool
}

extension RecordStore {
    /// Declares that `field` of `source`'s records holds ids of `target`'s records.
    ///
    /// ```swift
    /// try store.relate(notes, field: "folderID", to: folders, onDelete: .cascade)
    /// let inFolder = try store.related(notes, field: "folderID", of: folder.id)
    /// ```
    /// Relations live in this process (declare them at open, like indexes); delete rules apply to deletes made
    /// through this store.
    @discardableResult
    public func relate<S: Record, T: Record>(
        _ source: RecordCollection<S>, field: Field, to target: RecordCollection<T>, onDelete: Relation.DeleteRule
    ) throws -> Relation where S.ID: RecordIdentifier, T.ID: RecordIdentifier {
        guard field.isValid else {
            throw StorageError(
                .invalidArgument, "'\(field.path)' is not a field path", tier: .records, collection: source.name,
                operation: "relate")
        }
        try source.fields.check([field], collection: source.name, operation: "relate")
        let integerIDs = T.ID.self == Int.self || T.ID.self == Int64.self
        let relation = Relation(
            source: source.name, field: field, target: target.name, onDelete: onDelete, integerIDs: integerIDs)
        try createIndex(.field(field), in: source.name)  // References are looked up on every delete: index them.
        catalog.withLock { catalog in
            catalog.relations.removeAll { $0.source == relation.source && $0.field == relation.field }
            catalog.relations.append(relation)
        }
        return relation
    }

    /// The records of `source` whose `field` references `id`.
    public func related<S: Record, ID: RecordIdentifier>(_ source: RecordCollection<S>, field: Field, of id: ID) throws
        -> [S]
    where S.ID: RecordIdentifier {
        try source.fetch(where: .compare(field, .equal, id.queryValue))
    }

    /// Deletes records by id inside `transaction`, applying delete rules first.
    func delete(ids: [String], from collection: String, transaction: RecordTransaction, depth: Int = 0) throws -> Int {
        guard depth < 64 else {
            throw StorageError(
                .constraintViolation, "cascading deletes go more than 64 levels deep (a cycle of relations?)",
                tier: .records, collection: collection, operation: "delete")
        }
        let session = transaction.session
        let relations = catalog.withLock { $0.relations.filter { $0.target == collection } }
        for relation in relations {
            for id in ids {
                let reference: QueryValue =
                    relation.integerIDs ? (Int64(id).map { .integer($0) } ?? .text(id)) : .text(id)
                let referencing = try session.ids(
                    relation.source, matching: .compare(relation.field, .equal, reference))
                guard !referencing.isEmpty else { continue }
                switch relation.onDelete {
                case .deny:
                    throw StorageError(
                        .constraintViolation,
                        "the record is still referenced by \(referencing.count) record(s) of '\(relation.source)' through '\(relation.field)'",
                        tier: .records, key: id, collection: collection, operation: "delete",
                        recovery: "Delete or re-point the referencing records first")
                case .nullify:
                    try session.setNull(relation.source, field: relation.field, ids: referencing)
                    transaction.changedCollections.insert(relation.source)
                case .cascade:
                    _ = try delete(ids: referencing, from: relation.source, transaction: transaction, depth: depth + 1)
                }
            }
        }
        let deleted = try session.delete(collection, ids: ids)
        if deleted > 0 { transaction.changedCollections.insert(collection) }
        return deleted
    }
}
