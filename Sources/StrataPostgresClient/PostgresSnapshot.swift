package import StrataCore

/// One `REPEATABLE READ READ ONLY` transaction on a connection of its own, its snapshot taken when it is made: what
/// every tier of a store on one server and schema reads its capture from (``PostgresSnapshotCapture``), so that the
/// catalog, the suites, the keyrings and the records of a shared store are copied as of one instant — the same
/// instant, whichever tier asked first.
package final class PostgresSnapshot: CaptureResource {
    /// Who shares a snapshot: the tiers of one server (connection string) and schema.
    package struct Key: Hashable, Sendable {
        let connectionString: String
        let schema: String?
    }

    private let connection: PostgresConnection

    /// Connects with `configuration` (its schema on the search path), begins the transaction and takes its snapshot
    /// (PostgreSQL takes it at the first statement after `BEGIN`).
    /// - Throws: ``/StrataCore/StorageError`` when the server cannot be reached.
    package init(_ configuration: PostgresClientConfiguration) throws {
        connection = try PostgresConnection(configuration)
        do {
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", operation: "capture")
            _ = try connection.query("SELECT 1", operation: "capture")
        } catch {
            connection.close()
            throw error
        }
    }

    /// The key of the tiers that read with `configuration`.
    package static func key(of configuration: PostgresClientConfiguration) -> Key {
        Key(connectionString: configuration.connectionString, schema: configuration.schema)
    }

    /// Runs `body` on the snapshot's connection: every statement sees the state of the snapshot's instant.
    package func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try body(connection)
    }

    /// Ends the transaction and closes the connection.
    package func end() {
        if connection.isInTransaction && !connection.isBroken {
            try? connection.execute("COMMIT", operation: "capture")
        }
        connection.close()
    }
}
