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

    /// A key file, readable by its owner only, holding 32 random bytes (see ``createKeyFile(at:)``), 64 hex
    /// characters or base64: the forms of a keyring's key file (`KeyProvider.keyFile`), so one file can open both.
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

    /// Whether this is a passphrase (else a key file).
    var isPassphrase: Bool { if case .passphrase = source { true } else { false } }

    /// The 32 bytes of the key file, read only when it is a regular file of this process's user that no one else
    /// may read or write (the check of the secrets tier's key files, `PrivateFile`), in the forms a keyring's key file
    /// takes: 32 random bytes, 64 hex characters or base64 (`KeyProvider.parseKey`), so one key file opens both.
    /// - Throws: ``/StrataCore/StorageError`` `.unsafePermissions` when group or others may read it or it is another
    ///   user's, `.symbolicLink`, `.invalidArgument` when it holds none of those forms (32 characters of text are
    ///   never taken as key bytes), or an I/O error.
    func keyFileBytes(_ path: String) throws -> [UInt8] {
        var bytes = try PrivateFile.read(path, what: "key file", tier: nil, maximumSize: 4096)
        defer { bytes.withUnsafeMutableBytes { Sodium.memzero($0) } }
        do {
            return try KeyProvider.parseKey(bytes, source: "the key file \(path)", allowsRaw: true, tier: nil)
        } catch var error as StorageError {
            error.path = path
            throw error
        }
    }
}
