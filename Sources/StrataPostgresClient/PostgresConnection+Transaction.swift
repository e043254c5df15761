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
