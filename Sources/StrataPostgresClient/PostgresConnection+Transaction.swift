import StrataCore

extension PostgresConnection {
    /// Runs `body` between `BEGIN` and `COMMIT`; when anything throws, rolls the transaction back (on a connection
    /// still open: a lost one took its transaction with it) and rethrows.
    /// - Parameter operation: What the statements do, for errors (`open`, `record`).
    package func transaction<T>(operation: String, _ body: () throws -> T) throws -> T {
        try execute("BEGIN", operation: operation)
        do {
            let result = try body()
            try execute("COMMIT", operation: operation)
            return result
        } catch {
            if isInTransaction && !isBroken { try? execute("ROLLBACK", operation: operation) }
            throw error
        }
    }
}

extension PostgresConnection {
    /// Creates the schema `quotedSchema` unless it exists, then runs `statements` (an engine's `CREATE TABLE IF NOT
    /// EXISTS …`), in one transaction holding the advisory lock `lock`, so that machines opening the store at once
    /// create the engine's tables once.
    ///
    /// Each engine of a store takes a lock of its own (the records engine holds its lock through a whole migration,
    /// which no other engine's open may wait for), so two engines may create the schema at the same instant; the one
    /// that loses that race (the server reports a duplicate, `23505` or `42P06`) runs once more and finds it.
    package func prepareSchema(_ quotedSchema: String, lock: Int64, _ statements: String, operation: String) throws {
        func prepare() throws {
            try transaction(operation: operation) {
                try execute(
                    "SELECT pg_advisory_xact_lock(\(lock)); CREATE SCHEMA IF NOT EXISTS \(quotedSchema); " + statements,
                    operation: operation)
            }
        }
        do {
            try prepare()
        } catch let error as StorageError where error.sqlState == "23505" || error.sqlState == "42P06" {
            try prepare()
        }
    }
}
