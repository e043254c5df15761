import StrataCore

/// What a passphrase asked for at the terminal unlocks, and where else the verb takes it from: what the error says
/// when there is no terminal to ask at.
struct PassphraseSource: Sendable {
    /// What is asked for: `the keyring's passphrase`.
    var what: String
    /// The tier it unlocks, or `nil` (a backup repository is no tier).
    var tier: Tier?
    /// The other ways to give it, as the verbs that ask name them.
    var alternatives: String

    /// A keyring's passphrase (the `secrets` verbs, the engine's own verbs, `verify`).
    static let keyring = PassphraseSource(
        what: "the keyring's passphrase", tier: .secrets,
        alternatives: "--passphrase-file FILE, --secrets-key-file FILE, STRATA_PASSPHRASE or STRATA_SECRETS_KEY")
    /// The new passphrase of `secrets passwd`.
    static let newKeyringPassphrase = PassphraseSource(
        what: "the keyring's new passphrase", tier: .secrets,
        alternatives: "--new-passphrase-file FILE or STRATA_NEW_PASSPHRASE")
    /// A backup repository's passphrase.
    static let repository = PassphraseSource(
        what: "the backup repository's passphrase", tier: nil,
        alternatives: "--repo-key-file FILE or STRATA_BACKUP_PASSPHRASE")
    /// The new key of `key add` and `key passwd`.
    static let newRepositoryKey = PassphraseSource(
        what: "the backup repository's new passphrase", tier: nil,
        alternatives: "--new-key-file FILE or STRATA_BACKUP_NEW_PASSPHRASE")
}
