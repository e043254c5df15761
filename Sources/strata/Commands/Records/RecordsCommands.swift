import Strata

/// `strata records ...`: the group, and what its verbs share.
enum RecordsCommands {
    static let name = "records"
    static let group = CommandGroup(
        name: name,
        summary: "Look into record stores (SQLite, or PostgreSQL with --url): collections, queries, JSON Lines.",
        commands: [
            RecordsListCommand.self, RecordsKeysCommand.self, RecordsGetCommand.self, RecordsQueryCommand.self,
            RecordsExportCommand.self, RecordsImportCommand.self, RecordsVerifyCommand.self,
        ])

    static let collection = Argument("COLLECTION", "The collection's name.", completion: .key(.collection))
    /// How `records list` names the key-value table in its text output: no collection can be called this (a
    /// collection's name is letters, digits and `_`).
    static let keyValuesLabel = "(key-values)"

    /// The keys of the store's key-value table (the values `Storage` routed to records) that start with `prefix`,
    /// sorted by their bytes.
    static func keyValueKeys(in records: RecordStore, prefix: String = "") throws -> [String] {
        try records.keys().filter { $0.hasPrefix(prefix) }.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
    }

    /// The error for a collection the record store does not hold (or a store whose records tier is empty).
    static func noCollection(_ name: String) -> StorageError {
        StorageError(
            .notFound, "there is no collection '\(name)'", tier: .records, key: name,
            recovery: "'strata records list' names the collections")
    }
}
