import Strata

/// `strata secrets ...`: the group, and what its verbs share.
enum SecretsCommands {
    static let name = "secrets"
    static let group = CommandGroup(
        name: name, summary: "Keychain-style secrets: values print only when asked.",
        commands: [
            SecretsListCommand.self, SecretsGetCommand.self, SecretsSetCommand.self, SecretsDeleteCommand.self,
            SecretsRotateCommand.self, SecretsPasswdCommand.self,
        ])

    static let service = Argument(
        "SERVICE", "The item's service (as a keychain item has).", completion: .key(.secretService))
    static let account = Argument(
        "ACCOUNT", "The item's account within the service.", completion: .key(.secretAccount))

    /// The error for a service and account the keyring holds no item for.
    static func noItem(service: String, account: String) -> StorageError {
        StorageError(
            .notFound, "the service '\(service)' has no item for this account", tier: .secrets, key: account,
            recovery: "'strata secrets list' lists the items (check --keyring)")
    }
}
