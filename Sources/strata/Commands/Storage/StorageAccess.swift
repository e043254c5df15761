import Strata

/// The options the engine's own verbs open the store with (`--root`, `--secrets-key-file` or `--key-file`,
/// `--passphrase-file`), and how they open it: as `Storage(root:)` does, with the secrets key the options name (else
/// `STRATA_SECRETS_KEY`).
struct StorageAccess: Sendable {
    static let passphraseFileOption = Option(
        "--passphrase-file", "FILE", "Unlock a passphrase-protected keyring with the passphrase in FILE (mode 0600).",
        completion: .path)
    /// The options that unlock the secrets tier when a verb reaches it.
    static let keyOptions: [any OptionDeclaration] = SecretsAccess.keyFileOptions + [passphraseFileOption]

    var root: StoreRoot
    /// `--secrets-key-file` (or `--key-file`), if given.
    var keyFile: String?
    /// `--passphrase-file`, if given.
    var passphraseFile: String?

    /// Reads `--root` (with `--create` when the verb declares it) and ``keyOptions``.
    /// - Throws: ``UsageError`` when both a key file and `--passphrase-file` are given.
    init(parsing arguments: inout ParsedArguments, acceptsCreate: Bool = false) throws {
        root = try StoreRoot(parsing: &arguments, acceptsCreate: acceptsCreate)
        keyFile = try SecretsAccess.keyFile(parsing: &arguments)
        passphraseFile = try arguments.value(Self.passphraseFileOption)
        guard keyFile == nil || passphraseFile == nil else {
            throw UsageError("give either --secrets-key-file or --passphrase-file, not both")
        }
    }

    /// Opens the store as `Storage(root:)` does, checked for `use`.
    func open(for use: StoreRoot.Use) throws -> Storage {
        let paths = try root.paths(for: use)
        let key: KeyProvider? =
            if let keyFile { .keyFile(keyFile) } else { try passphraseFile.map { try .passphrase(contentsOf: $0) } }
        return try Storage(root: paths.root, secretsKey: key)
    }
}
