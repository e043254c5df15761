import Strata

/// How the tool words what to do about an error (its ``Remedy``): with its own verbs, options and variables, never the
/// Swift API's arguments that the error's own recovery names.
enum ToolRemedy {
    /// The tool's words for `remedy`.
    static func wording(_ remedy: Remedy) -> String {
        switch remedy {
        case .giveSecretsKey:
            "Pass --secrets-key-file FILE (mode 0600) or --passphrase-file FILE, or set STRATA_SECRETS_KEY to 64 hex "
                + "characters (STRATA_PASSPHRASE for a keyring protected by a passphrase)"
        case .allowPlaintext(let tier):
            "Keep it in the secrets tier; to store it in plaintext on purpose, add --allow-plaintext "
                + "('strata mv KEY \(tier.rawValue) --allow-plaintext', or 'strata put … --allow-plaintext')"
        case .changeThroughStore(let tier):
            "Change it with 'strata put' (which moves it where it belongs), move it first with 'strata mv KEY "
                + "\(tier.rawValue)', or remove it with 'strata rm KEY' and write it again"
        case .allowSensitiveName:
            "Store it in the secrets tier ('strata put KEY --kind credential'); if it is not a credential, allow the "
                + "name with 'allow-sensitive-key = NAME' under [defaults] in the store's strata.conf"
        case .createRepository:
            "Check the --repo path, or create the repository with 'strata backup ROOT --repo PATH --init' and the key "
                + "it will keep (--repo-key-file FILE, or STRATA_BACKUP_PASSPHRASE)"
        }
    }

    /// `error` as the tool prints it: a ``StorageError`` with a remedy says it in the tool's words.
    static func described(_ error: any Error) -> String {
        guard var storageError = error as? StorageError, let remedy = storageError.remedy else { return "\(error)" }
        storageError.recovery = wording(remedy)
        return "\(storageError)"
    }
}
