import Foundation
import Strata

/// How `strata secrets` opens a keyring: with the key an application's `Storage` uses (`--key-file`, or
/// `STRATA_SECRETS_KEY`) or with a passphrase (`--passphrase-file`, `STRATA_PASSPHRASE`, or the terminal).
enum SecretsAccess {
    /// What a verb does to the keyring.
    enum Use {
        /// Reads: the keyring must exist (a mistyped `--keyring` is an error, never a new keyring).
        case read
        /// Writes an item: creates the keyring if it does not exist, asking for a new passphrase twice.
        case write
    }

    static let keyFileOption = OptionSpec.value(
        "--key-file", "FILE",
        "Unlock with the 32-byte key in FILE (mode 0600), as Storage(secretsKey: .keyFile(FILE)) does.")
    static let options = [StoreAccess.rootOption] + StoreAccess.passphraseOptions + [keyFileOption]

    /// Opens and unlocks the keyring named by `--keyring` (the default is the store configuration's, `default` unless
    /// `strata.conf` names another: the one `Storage` uses).
    static func open(_ parsed: ParsedArguments, for use: Use) throws -> SecretStore {
        try unlocked(parsed, for: use).store
    }

    /// Opens and unlocks the keyring for a read as ``open(_:for:)`` does, or returns `nil` when the store's own
    /// keyring (no `--keyring` given) does not exist yet and no item was left without it: the secrets tier is empty
    /// and reads as empty, without asking for a passphrase. A `--keyring` name given that does not exist stays
    /// `not-found` (a mistyped name never reads as an empty keyring).
    static func openIfPresent(_ parsed: ParsedArguments) throws -> SecretStore? {
        if parsed.value("--keyring") == nil {
            let paths = try StoreAccess.paths(parsed, for: .read)
            let store = try SecretStore(keyring: StoreAccess.configuration(paths).secrets.keyring, paths: paths)
            if !store.keyringExists {
                do { try store.requireKeyring() } catch let error as StorageError where error.code == .notFound {
                    return nil
                }
            }
        }
        return try open(parsed, for: .read)
    }

    /// Opens and unlocks the keyring as ``open(_:for:)`` does, and returns the key or passphrase that unlocked it
    /// (a rotation wraps the new data key under it, without asking again).
    static func unlocked(_ parsed: ParsedArguments, for use: Use) throws -> (store: SecretStore, provider: KeyProvider)
    {
        let paths = try StoreAccess.paths(parsed, for: use == .write ? .write : .read)
        let keyring =
            try StoreAccess.name(parsed, "--keyring", of: "keyring") ?? StoreAccess.configuration(paths).secrets.keyring
        let store = try SecretStore(keyring: keyring, paths: paths)
        let exists = store.keyringExists
        if !exists {
            // A read needs the keyring; a write may create it, but never over items left without keyring.json
            // (checked before asking for any passphrase).
            do { try store.requireKeyring() } catch let error as StorageError where error.code == .notFound {
                if use == .read { throw error }
            }
        }
        let provider = try provider(parsed, for: store, creating: !exists)
        try store.unlock(with: provider, createIfMissing: use == .write)
        return (store, provider)
    }

    /// The key or passphrase to unlock with, in this order: `--key-file`, `--passphrase-file`, then the
    /// environment as the keyring asks for it (`STRATA_SECRETS_KEY` for a key-protected keyring,
    /// `STRATA_PASSPHRASE` for a passphrase-protected one; for a new keyring `STRATA_SECRETS_KEY` wins, as it
    /// does for `Storage`), then the terminal (twice for a new keyring).
    static func provider(_ parsed: ParsedArguments, for store: SecretStore, creating: Bool) throws -> KeyProvider {
        if let file = parsed.value("--key-file") {
            guard parsed.value("--passphrase-file") == nil else {
                throw UsageError("give either --key-file or --passphrase-file, not both")
            }
            return .keyFile(file)
        }
        if let file = parsed.value("--passphrase-file") { return try .passphrase(contentsOf: file) }
        let environment = ProcessInfo.processInfo.environment
        let hasKey = !(environment[KeyProvider.environmentVariable] ?? "").isEmpty
        let isPassphrase = creating ? !hasKey : try store.isPassphraseProtected ?? !hasKey
        guard isPassphrase else {
            guard hasKey else {
                throw StorageError(
                    .locked, "the keyring is protected by a key, not a passphrase", tier: .secrets,
                    recovery: "Pass --key-file FILE or set \(KeyProvider.environmentVariable)")
            }
            return .environment(KeyProvider.environmentVariable)
        }
        if let value = environment["STRATA_PASSPHRASE"], !value.isEmpty { return .passphrase(value) }
        return .passphrase(
            creating
                ? try Terminal.readNewSecret(prompt: "New passphrase for keyring '\(store.keyring)': ")
                : try Terminal.readSecret(prompt: "Passphrase: "))
    }
}
