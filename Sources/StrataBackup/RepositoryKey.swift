import Foundation
import StrataCore
public import StrataSecrets

/// What unlocks a backup repository: a passphrase (stretched with Argon2id) or a key file of 32 random bytes.
///
/// Either one opens a key slot of the repository (`keys/`), which seals the repository's random master key; the
/// master key never depends on the passphrase, so adding or changing a passphrase rewrites one small file.
///
/// ```swift
/// let repository = try BackupRepository.create(at: "/backups/app", key: .passphrase("correct horse"))
/// ```
public struct RepositoryKey: Sendable {
    enum Source: Sendable {
        case passphrase([UInt8])
        case keyFile(String)
    }

    let source: Source
    /// The Argon2id cost of a new passphrase slot. An existing slot keeps the cost stored in it.
    public var cost: PasswordHashCost

    /// A passphrase.
    /// - Parameters:
    ///   - passphrase: Its UTF-8 bytes are hashed, exactly as given.
    ///   - cost: The cost of a new slot. The default is
    ///     ``/StrataSecrets/SecretsConfiguration/PasswordHashCost/interactive``.
    public static func passphrase(_ passphrase: String, cost: PasswordHashCost = .interactive) -> RepositoryKey {
        RepositoryKey(source: .passphrase(Array(passphrase.utf8)), cost: cost)
    }

    /// A key file: exactly 32 bytes, readable by its owner only (see ``createKeyFile(at:)``).
    public static func keyFile(_ path: String) -> RepositoryKey {
        RepositoryKey(source: .keyFile(path), cost: .interactive)
    }

    /// Writes a new key file of 32 random bytes, mode 0600.
    /// - Throws: ``/StrataCore/StorageError`` when it cannot be written (a file already there is never replaced:
    ///   `.invalidArgument`).
    public static func createKeyFile(at path: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            throw StorageError(
                .invalidArgument, "a file is already there; a key file is never replaced", path: path,
                recovery: "Choose another path, or remove the old key file if no repository needs it")
        }
        try AtomicFile.write(Data(Sodium.random(32)), to: path, permissions: 0o600)
    }

    /// The 32 bytes of the key file.
    /// - Throws: ``/StrataCore/StorageError`` `.unsafePermissions` when group or others may read it, `.invalidArgument`
    ///   when it is not 32 bytes, or an I/O error.
    func keyFileBytes(_ path: String) throws -> [UInt8] {
        let info: stat
        do { info = try Sys.lstat(path) } catch {
            throw error.storageError("cannot inspect the key file", path: path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StorageError(.invalidArgument, "the key file is not a regular file", path: path)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw StorageError(
                .unsafePermissions, "the key file may be read by its group or others", path: path,
                recovery: "Run `chmod 600` on it")
        }
        guard let data = try AtomicFile.read(path, maximumSize: 4096, followGrowth: false), data.count == 32 else {
            throw StorageError(
                .invalidArgument, "a key file holds exactly 32 bytes", path: path,
                recovery: "Use the key file the repository was made with")
        }
        return Array(data)
    }
}
