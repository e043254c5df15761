import Foundation
import Strata

/// The new key `strata key add` and `key passwd` take: `--new-key-file` (written first with `--create-key-file`),
/// else `STRATA_BACKUP_NEW_PASSPHRASE`, else the terminal, asked twice.
struct NewRepositoryKey: Sendable {
    /// `--new-key-file`, if given.
    var file: String?
    /// Whether `--create-key-file` is given.
    var createsFile: Bool

    /// Reads ``KeyCommands/newKeyOptions``.
    /// - Throws: ``UsageError`` for `--create-key-file` without `--new-key-file`.
    init(parsing arguments: inout ParsedArguments) throws {
        file = try arguments.value(KeyCommands.newKeyFileOption)
        createsFile = arguments.isSet(KeyCommands.createKeyFileFlag)
        guard file != nil || !createsFile else { throw UsageError("'--create-key-file' needs '--new-key-file FILE'") }
    }

    /// The key, its file written first with `--create-key-file`.
    func key() throws -> RepositoryKey {
        if let file {
            if createsFile { try RepositoryKey.createKeyFile(at: file) }
            return .keyFile(file)
        }
        if let value = ProcessInfo.processInfo.environment[KeyCommands.newPassphraseVariable], !value.isEmpty {
            return .passphrase(value)
        }
        return .passphrase(
            try Terminal.readNewSecret(
                prompt: "New passphrase of the backup repository: ", source: .newRepositoryKey))
    }
}
