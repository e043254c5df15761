import Foundation
import Strata

/// The options every backup verb opens its repository with (`--repo`, `--key-file`), and how it opens it: with the
/// key file, else the passphrase in `STRATA_BACKUP_PASSPHRASE`, else one typed at the terminal. A passphrase is
/// never an argument: it would show in `ps` and the shell's history.
struct RepositoryAccess: Sendable {
    static let passphraseVariable = "STRATA_BACKUP_PASSPHRASE"
    static let repoOption = Option("--repo", "DIR", "The backup repository (a folder).", completion: .path)
    static let keyFileOption = Option(
        "--key-file", "FILE",
        "Open the repository with the key in FILE (mode 0600), else STRATA_BACKUP_PASSPHRASE, else the terminal.",
        completion: .path)
    static let options: [any OptionDeclaration] = [repoOption, keyFileOption]

    /// `--repo`.
    var path: String
    /// `--key-file`, if given.
    var keyFile: String?

    /// - Throws: ``UsageError`` when `--repo` is missing.
    init(parsing arguments: inout ParsedArguments) throws {
        guard let path = try arguments.value(Self.repoOption), !path.isEmpty else {
            throw UsageError("'--repo DIR' is required")
        }
        self.path = path
        keyFile = try arguments.value(Self.keyFileOption)
    }

    /// The repository, opened with ``key(creating:)``; with `creating`, made first when the folder is missing or
    /// empty.
    func open(creating: Bool = false) throws -> BackupRepository {
        let isRepository = FileManager.default.fileExists(atPath: path + "/config")
        if creating, !isRepository { return try BackupRepository.create(at: path, key: try key(creating: true)) }
        return try BackupRepository.open(at: path, key: try key(creating: false))
    }

    /// The repository key: `--key-file`, else `STRATA_BACKUP_PASSPHRASE`, else the terminal (twice for a new one).
    func key(creating: Bool) throws -> RepositoryKey {
        if let keyFile { return .keyFile(keyFile) }
        if let value = ProcessInfo.processInfo.environment[Self.passphraseVariable], !value.isEmpty {
            return .passphrase(value)
        }
        let prompt = "Passphrase of the backup repository: "
        return .passphrase(try creating ? Terminal.readNewSecret(prompt: prompt) : Terminal.readSecret(prompt: prompt))
    }
}
