import Strata

/// `strata records ...`: the group, and what its verbs share.
enum RecordsCommands {
    static let name = "records"
    static let group = CommandGroup(
        name: name,
        summary: "Look into record stores (SQLite, or PostgreSQL with --url): collections, queries, JSON Lines.",
        commands: [
            RecordsListCommand.self, RecordsGetCommand.self, RecordsQueryCommand.self, RecordsExportCommand.self,
            RecordsImportCommand.self, RecordsVerifyCommand.self,
        ])

    static let collection = Argument("COLLECTION", "The collection's name.")

    /// The error for a collection the record store does not hold (or a store whose records tier is empty).
    static func noCollection(_ name: String) -> StorageError {
        StorageError(
            .notFound, "there is no collection '\(name)'", tier: .records, key: name,
            recovery: "'strata records list' names the collections")
    }
}
