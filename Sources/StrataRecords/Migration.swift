import StrataCore

/// One version of the app's schema: the steps that bring a store from the previous version to this one.
///
/// ```swift
/// let migrations = [
///     Migration(2, [.addField("people", "active", default: .bool(true))]),
///     Migration(3, [.renameField("people", from: "mail", to: "email"), .addIndex("people", .field("email"))]),
/// ]
/// let store = try RecordStore(name: "main", paths: paths, migrations: migrations)
/// ```
/// Adding an optional field needs no migration (CoreData's "lightweight" case): records without it decode
/// with `nil`.
public struct Migration: Sendable {
    /// The version this migration brings the store to (`PRAGMA user_version`).
    public var version: Int
    /// The steps, run in order.
    public var steps: [MigrationStep]

    public init(_ version: Int, _ steps: [MigrationStep]) {
        self.version = version
        self.steps = steps
    }
}

/// One change of a migration.
public enum MigrationStep: Sendable {
    /// Adds a field with a default to every record that lacks it.
    case addField(String, Field, default: JSONValue)
    /// Renames a field in every record that has it.
    case renameField(String, from: Field, to: Field)
    /// Removes a field from every record.
    case removeField(String, Field)
    /// Rewrites every record with a closure (throw to abort the whole migration).
    case transform(String, @Sendable (inout JSONValue) throws -> Void)
    /// Creates an index.
    case addIndex(String, Index)
    /// Drops an index.
    case dropIndex(String, Index)
}

extension RecordStore {
    /// Runs the migrations above the database's version, all in one transaction.
    static func migrate(_ engine: any RecordEngine, migrations: [Migration]) throws {
        guard let newest = migrations.map(\.version).max() else { return }
        // A cheap look first: most opens have nothing to do and need no exclusive transaction.
        let seen = try engine.schemaVersion()
        try checkNotNewer(seen, newest, engine: engine)
        guard seen < newest else { return }
        try engine.migrate { session in
            // Another process may have migrated meanwhile: decide again under the migration lock.
            let current = try session.schemaVersion()
            try checkNotNewer(current, newest, engine: engine)
            let pending = migrations.filter { $0.version > current }.sorted { $0.version < $1.version }
            guard !pending.isEmpty else { return }
            for migration in pending {
                for step in migration.steps {
                    try apply(step, on: session, operation: "migrate to \(migration.version)")
                }
            }
            try session.setSchemaVersion(newest)
        }
    }

    static func checkNotNewer(_ current: Int, _ newest: Int, engine: any RecordEngine) throws {
        guard current <= newest else {
            throw StorageError(
                .unsupportedVersion, "the store is at schema version \(current), newer than this program's \(newest)",
                tier: .records, path: engine.location, recovery: "Open it with the newer version of the program")
        }
    }

    static func apply(_ step: MigrationStep, on session: any RecordSession, operation: String) throws {
        func prepare(_ collection: String, _ fields: [Field]) throws {
            try checkName(collection, operation: operation)
            try check(fields, collection: collection, operation: operation)
            try session.createCollection(collection)
        }
        switch step {
        case .addField(let collection, let field, let value):
            try prepare(collection, [field])
            try session.addField(collection, field, value: value)
        case .renameField(let collection, let from, let to):
            try prepare(collection, [from, to])
            try session.renameField(collection, from: from, to: to)
        case .removeField(let collection, let field):
            try prepare(collection, [field])
            try session.removeField(collection, field)
        case .transform(let collection, let transform):
            try prepare(collection, [])
            var rows: [(String, JSONValue)] = []
            try session.select(collection, Query()) { id, bytes in
                do {
                    rows.append((id, try JSONValue.parse(bytes)))
                } catch {
                    throw StorageError(
                        .corrupt, "a stored record is not JSON: \(error)", tier: .records, key: id,
                        collection: collection, operation: operation)
                }
            }
            for (id, original) in rows {
                var value = original
                try transform(&value)
                guard value != original else { continue }
                _ = try value.serialized().withUnsafeBytes {
                    try session.write(collection, id: id, body: $0, mode: .update)
                }
            }
        case .addIndex(let collection, let index):
            try prepare(collection, [index.field])
            try session.createIndex(index, in: collection)
        case .dropIndex(let collection, let index):
            try prepare(collection, [index.field])
            try session.dropIndex(index, in: collection)
        }
    }
}
