import Strata

/// `strata defaults ...`: the group, and what its verbs share.
enum DefaultsCommands {
    static let name = "defaults"
    static let group = CommandGroup(
        name: name, summary: "Read and change preference suites.",
        commands: [
            DefaultsGetCommand.self, DefaultsSetCommand.self, DefaultsDeleteCommand.self, DefaultsListCommand.self,
            DefaultsExportCommand.self, DefaultsImportCommand.self,
        ])

    static let key = Argument("KEY", "The preference's key.", completion: .key(.defaults))

    /// The error for a key the suite has no value for.
    static func noValue(_ key: String) -> StorageError {
        StorageError(
            .notFound, "there is no value for this key", tier: .defaults, key: key,
            recovery: "'strata defaults list' prints the keys (check --suite)")
    }
}
