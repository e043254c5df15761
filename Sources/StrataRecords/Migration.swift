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
    /// Runs the migrations above the file's version, all in one transaction.
    static func migrate(_ connection: SQLiteConnection, migrations: [Migration]) throws {
        let statement = try connection.statement("PRAGMA user_version", operation: "migrate")
        _ = try statement.step()
        let current = Int(statement.int64(0))
        statement.reset()
        guard let newest = migrations.map(\.version).max() else { return }
        guard current <= newest else {
            throw StorageError(
                .unsupportedVersion, "the store is at schema version \(current), newer than this program's \(newest)",
                tier: .records, path: connection.path, recovery: "Open it with the newer version of the program")
        }
        let pending = migrations.filter { $0.version > current }.sorted { $0.version < $1.version }
        guard !pending.isEmpty else { return }
        try connection.execute("BEGIN IMMEDIATE", operation: "migrate")
        do {
            for migration in pending {
                for step in migration.steps {
                    try apply(step, on: connection, operation: "migrate to \(migration.version)")
                }
            }
            try connection.execute("PRAGMA user_version = \(newest)", operation: "migrate")
            try connection.execute("COMMIT", operation: "migrate")
        } catch {
            try? connection.execute("ROLLBACK", operation: "migrate")
            throw error
        }
    }

    static func apply(_ step: MigrationStep, on connection: SQLiteConnection, operation: String) throws {
        func table(_ collection: String) throws -> String {
            guard isValidName(collection) else {
                throw StorageError(
                    .invalidArgument, "bad collection name in a migration", tier: .records, collection: collection,
                    operation: operation)
            }
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS c_\(collection) (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID",
                operation: operation, collection: collection)
            return "c_\(collection)"
        }
        func check(_ field: Field, _ collection: String) throws {
            guard field.isValid else {
                throw StorageError(
                    .invalidArgument, "'\(field.path)' is not a field path", tier: .records, collection: collection,
                    operation: operation)
            }
        }
        switch step {
        case .addField(let collection, let field, let value):
            try check(field, collection)
            let statement = try connection.statement(
                "UPDATE \(try table(collection)) SET body = json_set(body, '$.\(field.path)', json(?)) WHERE json_type(body, '$.\(field.path)') IS NULL",
                operation: operation, collection: collection)
            statement.bind(.text(value.description), at: 1)
            try statement.run()
        case .renameField(let collection, let from, let to):
            try check(from, collection)
            try check(to, collection)
            try connection.execute(
                "UPDATE \(try table(collection)) SET body = json_remove(json_set(body, '$.\(to.path)', json(body -> '$.\(from.path)')), '$.\(from.path)') WHERE json_type(body, '$.\(from.path)') IS NOT NULL",
                operation: operation, collection: collection)
        case .removeField(let collection, let field):
            try check(field, collection)
            try connection.execute(
                "UPDATE \(try table(collection)) SET body = json_remove(body, '$.\(field.path)')", operation: operation,
                collection: collection)
        case .transform(let collection, let transform):
            let name = try table(collection)
            let select = try connection.statement(
                "SELECT id, body FROM \(name)", operation: operation, collection: collection)
            var rows: [(String, JSONValue)] = []
            while try select.step() {
                let id = select.text(0)
                let value = try select.withBytes(1) { bytes in
                    do { return try JSONValue.parse(bytes) } catch {
                        throw StorageError(
                            .corrupt, "a stored record is not JSON: \(error)", tier: .records, key: id,
                            collection: collection, operation: operation)
                    }
                }
                rows.append((id, value))
            }
            let update = try connection.statement(
                "UPDATE \(name) SET body = ? WHERE id = ?", operation: operation, collection: collection)
            for (id, original) in rows {
                var value = original
                try transform(&value)
                guard value != original else { continue }
                update.reset()
                value.serialized().withUnsafeBytes { update.bindText($0, at: 1) }
                update.bind(.text(id), at: 2)
                try update.run()
            }
        case .addIndex(let collection, let index):
            try check(index.field, collection)
            try connection.execute(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index.sqlName(in: collection)) ON \(try table(collection))(\(index.field.sql))",
                operation: operation, collection: collection)
        case .dropIndex(let collection, let index):
            try check(index.field, collection)
            try connection.execute(
                "DROP INDEX IF EXISTS \(index.sqlName(in: collection))", operation: operation, collection: collection)
        }
    }
}
