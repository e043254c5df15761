import Foundation
import Strata

/// The options every backup verb opens its repository with (`--repo`, `--repo-key-file`), and how it opens it: with
/// the key file, else the passphrase in `STRATA_BACKUP_PASSPHRASE`, else one typed at the terminal. A passphrase is
/// never an argument: it would show in `ps` and the shell's history.
///
/// The repository's key file is `--repo-key-file` on every backup verb; where a verb opens no other key (all but
/// `restore`) `--key-file` says the same. `restore` also takes the keyring's key (`--secrets-key-file`), so it takes
/// `--repo-key-file` only and refuses `--key-file` (``ambiguousKeyFileOption``).
struct RepositoryAccess: Sendable {
    static let passphraseVariable = "STRATA_BACKUP_PASSPHRASE"
    static let repoOption = Option("--repo", "DIR", "The backup repository (a folder).", completion: .path)
    static let repoKeyFileOption = Option(
        "--repo-key-file", "FILE",
        "Open the repository with the key in FILE (mode 0600; 32 random bytes, 64 hex characters or base64), else "
            + "STRATA_BACKUP_PASSPHRASE, else the terminal.",
        completion: .path)
    /// `--key-file`: ``repoKeyFileOption`` by its short name, on the verbs that open no other key.
    static let keyFileOption = Option(
        "--key-file", "FILE", "The same as --repo-key-file (this verb opens no other key).", completion: .path)
    /// `--key-file` on a verb that opens two keys (`restore`): refused, naming the two options that say which.
    static let ambiguousKeyFileOption = Option<String>(
        "--key-file", "FILE", "Not taken here (two keys): say --repo-key-file or --secrets-key-file.",
        completion: .path
    ) { _ in
        throw UsageError(
            "'--key-file' does not say which key: give the repository's as --repo-key-file FILE and the keyring's "
                + "(to read the restored secrets back) as --secrets-key-file FILE")
    }
    /// The options of a verb that opens the repository and no other key.
    static let options: [any OptionDeclaration] = [repoOption] + keyFileOptions
    /// The options that name the repository's key file, on a verb that opens no other key.
    static let keyFileOptions: [any OptionDeclaration] = [repoKeyFileOption, keyFileOption]

    /// `--repo`.
    var path: String
    /// `--repo-key-file` (or `--key-file`), if given.
    var keyFile: String?

    /// Reads `--repo` and the key file: ``keyFileOptions``, or with `opensOtherKeys` (`restore`) `--repo-key-file`
    /// and ``ambiguousKeyFileOption``.
    /// - Throws: ``UsageError`` when `--repo` is missing, or the key file is given both ways (or as `--key-file` to
    ///   a verb that opens other keys).
    init(parsing arguments: inout ParsedArguments, opensOtherKeys: Bool = false) throws {
        guard let path = try arguments.value(Self.repoOption), !path.isEmpty else {
            throw UsageError("'--repo DIR' is required")
        }
        self.path = path
        let long = try arguments.value(Self.repoKeyFileOption)
        let short = try arguments.value(opensOtherKeys ? Self.ambiguousKeyFileOption : Self.keyFileOption)
        guard long == nil || short == nil else {
            throw UsageError(
                "give the repository's key file once: --repo-key-file or --key-file (the same option)")
        }
        keyFile = long ?? short
    }

    /// The repository, opened with ``key(creating:)``; with `creating`, made first when the folder is missing or
    /// empty.
    func open(creating: Bool = false) throws -> BackupRepository {
        let isRepository = FileManager.default.fileExists(atPath: path + "/config")
        if creating, !isRepository { return try BackupRepository.create(at: path, key: try key(creating: true)) }
        return try BackupRepository.open(at: path, key: try key(creating: false))
    }

    /// The repository key: `--repo-key-file`, else `STRATA_BACKUP_PASSPHRASE`, else the terminal (twice for a new one).
    func key(creating: Bool) throws -> RepositoryKey {
        if let keyFile { return .keyFile(keyFile) }
        if let value = ProcessInfo.processInfo.environment[Self.passphraseVariable], !value.isEmpty {
            return .passphrase(value)
        }
        let prompt = "Passphrase of the backup repository: "
        return .passphrase(
            try creating
                ? Terminal.readNewSecret(prompt: prompt, source: .repository)
                : Terminal.readSecret(prompt: prompt, source: .repository))
    }
}
