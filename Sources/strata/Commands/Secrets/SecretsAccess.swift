import Foundation
import Strata

/// How `strata secrets` opens a keyring: with the key an application's `Storage` uses (`--secrets-key-file`, or
/// `STRATA_SECRETS_KEY`) or with a passphrase (`--passphrase-file`, `STRATA_PASSPHRASE`, or the terminal).
///
/// The keyring's key file is `--secrets-key-file` on every verb that takes one; where a verb opens no other key
/// (the `secrets` verbs, the engine's own verbs, `verify`) `--key-file` says the same. `restore`, which also opens a
/// repository, takes `--secrets-key-file` only (`--key-file` would not say which key).
struct SecretsAccess: Sendable {
    /// What a verb does to the keyring.
    enum Use {
        /// Reads: the keyring must exist (a mistyped `--keyring` is an error, never a new keyring).
        case read
        /// Writes an item: creates the keyring if it does not exist, asking for a new passphrase twice.
        case write
    }

    static let keyringOption = StoreAccess.nameOption(
        "--keyring", of: "keyring", "The keyring. The default is the store configuration's, else 'default'.")
    static let passphraseFileOption = Option(
        "--passphrase-file", "FILE",
        "Read the passphrase from FILE, mode 0600 (else STRATA_PASSPHRASE, else the terminal).",
        completion: .path)
    static let secretsKeyFileOption = Option(
        "--secrets-key-file", "FILE",
        "Unlock the keyring with the key in FILE (mode 0600; 32 random bytes, 64 hex characters or base64), as "
            + "Storage(secretsKey: .keyFile(FILE)) does.",
        completion: .path)
    /// `--key-file`: ``secretsKeyFileOption`` by its short name, on the verbs that open no other key.
    static let keyFileOption = Option(
        "--key-file", "FILE", "The same as --secrets-key-file (this verb opens no other key).", completion: .path)
    /// The options that name the keyring's key file.
    static let keyFileOptions: [any OptionDeclaration] = [secretsKeyFileOption, keyFileOption]
    /// The options that choose and unlock a keyring.
    static let unlockOptions: [any OptionDeclaration] = [keyringOption, passphraseFileOption] + keyFileOptions
    /// The options every secrets verb takes (`set` adds ``StoreRoot/createFlag``).
    static let options: [any OptionDeclaration] = [StoreRoot.option] + unlockOptions

    var root: StoreRoot
    /// `--keyring`, if given.
    var keyring: String?
    /// `--passphrase-file`, if given.
    var passphraseFile: String?
    /// `--secrets-key-file` (or `--key-file`), if given.
    var keyFile: String?

    /// The keyring of the store at `root` that the configuration names, unlocked from the environment or the
    /// terminal (how a files verb reaches the S3 keys a keyring holds).
    init(root: StoreRoot) {
        self.root = root
    }

    /// Reads `--root` (with `--create` when the verb declares it) and ``unlockOptions``.
    /// - Throws: ``UsageError`` when both `--key-file` and `--passphrase-file` are given.
    init(parsing arguments: inout ParsedArguments, acceptsCreate: Bool = false) throws {
        let root = try StoreRoot(parsing: &arguments, acceptsCreate: acceptsCreate)
        try self.init(unlocking: &arguments, root: root)
    }

    /// Reads ``unlockOptions`` for the store at `root`.
    /// - Throws: ``UsageError`` when both a key file and `--passphrase-file` are given.
    init(unlocking arguments: inout ParsedArguments, root: StoreRoot) throws {
        self.root = root
        keyring = try arguments.value(Self.keyringOption)
        passphraseFile = try arguments.value(Self.passphraseFileOption)
        keyFile = try Self.keyFile(parsing: &arguments)
        guard keyFile == nil || passphraseFile == nil else {
            throw UsageError("give either --secrets-key-file or --passphrase-file, not both")
        }
    }

    /// The keyring's key file: `--secrets-key-file` or `--key-file`, for a verb that declares both
    /// (``keyFileOptions``).
    /// - Throws: ``UsageError`` when both are given.
    static func keyFile(parsing arguments: inout ParsedArguments) throws -> String? {
        let long = try arguments.value(secretsKeyFileOption)
        let short = try arguments.value(keyFileOption)
        guard long == nil || short == nil else {
            throw UsageError("give the keyring's key file once: --secrets-key-file or --key-file (the same option)")
        }
        return long ?? short
    }

    /// Opens and unlocks the keyring named by `--keyring` (the default is the store configuration's, `default` unless
    /// `strata.conf` names another: the one `Storage` uses).
    func open(for use: Use) throws -> SecretStore {
        try unlocked(for: use).store
    }

    /// Opens and unlocks the keyring for a read as ``open(_:for:)`` does, or returns `nil` when the store's own
    /// keyring (no `--keyring` given) does not exist yet and no item was left without it: the secrets tier is empty
    /// and reads as empty, without asking for a passphrase. A `--keyring` name given that does not exist stays
    /// `not-found` (a mistyped name never reads as an empty keyring).
    func openIfPresent() throws -> SecretStore? {
        if keyring == nil {
            let paths = try StoreAccess.paths(root, for: .read)
            let store = try SecretStore(keyring: try localConfiguration(paths).secrets.keyring, paths: paths)
            if !store.keyringExists {
                do { try store.requireKeyring() } catch let error as StorageError where error.code == .notFound {
                    return nil
                }
            }
        }
        return try open(for: .read)
    }

    /// The store's configuration, when its keyrings are folders under the root.
    /// - Throws: ``/StrataCore/StorageError`` `.noBackend` for a shared store: the keyring folder under the root is
    ///   this machine's own, and the store's credentials are on the server.
    private func localConfiguration(_ paths: StoragePaths) throws -> StoreConfiguration {
        let configuration = try StoreAccess.configuration(paths)
        if configuration.catalog.isShared {
            var error = configuration.machineLocalStoreError(.secrets, key: nil)
            error.recovery =
                "The store's credentials are on the server: read and write them with strata get, put (--kind "
                + "credential), ls and rm"
            throw error
        }
        return configuration
    }

    /// Opens and unlocks the keyring as ``open(_:for:)`` does, and returns the key or passphrase that unlocked it
    /// (a rotation wraps the new data key under it, without asking again).
    func unlocked(for use: Use) throws -> (store: SecretStore, provider: KeyProvider) {
        let paths = try StoreAccess.paths(root, for: use == .write ? .write : .read)
        let configured = try localConfiguration(paths).secrets.keyring
        let keyring = self.keyring ?? configured
        let store = try SecretStore(keyring: keyring, paths: paths)
        let exists = store.keyringExists
        if !exists {
            // A read needs the keyring; a write may create it, but never over items left without keyring.json
            // (checked before asking for any passphrase).
            do { try store.requireKeyring() } catch let error as StorageError where error.code == .notFound {
                if use == .read { throw error }
            }
        }
        let provider = try provider(for: store, creating: !exists)
        try store.unlock(with: provider, createIfMissing: use == .write)
        return (store, provider)
    }

    /// The key or passphrase to unlock with, in this order: `--secrets-key-file`, `--passphrase-file`, then the
    /// environment as the keyring asks for it (`STRATA_SECRETS_KEY` for a key-protected keyring,
    /// `STRATA_PASSPHRASE` for a passphrase-protected one; for a new keyring `STRATA_SECRETS_KEY` wins, as it
    /// does for `Storage`), then the terminal (twice for a new keyring).
    func provider(for store: SecretStore, creating: Bool) throws -> KeyProvider {
        if let keyFile { return .keyFile(keyFile) }
        if let passphraseFile { return try .passphrase(contentsOf: passphraseFile) }
        let environment = ProcessInfo.processInfo.environment
        let hasKey = !(environment[KeyProvider.environmentVariable] ?? "").isEmpty
        let isPassphrase = creating ? !hasKey : try store.isPassphraseProtected ?? !hasKey
        guard isPassphrase else {
            guard hasKey else {
                throw StorageError(
                    .locked, "the keyring is protected by a key, not a passphrase", tier: .secrets,
                    recovery: "Pass --secrets-key-file FILE or set \(KeyProvider.environmentVariable)")
            }
            return .environment(KeyProvider.environmentVariable)
        }
        if let value = environment["STRATA_PASSPHRASE"], !value.isEmpty { return .passphrase(value) }
        return .passphrase(
            creating
                ? try Terminal.readNewSecret(
                    prompt: "New passphrase for keyring '\(store.keyring)': ", source: .keyring)
                : try Terminal.readSecret(prompt: "Passphrase: ", source: .keyring))
    }
}
