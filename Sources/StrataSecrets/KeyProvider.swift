import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the key that wraps a keyring's data key comes from.
///
/// A keyring remembers which kind created it; unlocking it with another kind is refused with a clear error.
public enum KeyProvider: Sendable, CustomStringConvertible {
    /// A passphrase, stretched with Argon2id (parameters stored in the keyring).
    case passphrase(Secret)
    /// A file holding 32 random bytes (raw, or as 64 hex characters). It must be a regular file of mode 0600 or
    /// stricter, owned by the current user; anything else is refused.
    case keyFile(String)
    /// An environment variable holding 32 bytes as 64 hex characters or base64.
    case environment(String)
    /// A 32-byte key held by the program (tests, or keys from another secret manager).
    case inMemory(Secret)

    /// A passphrase given as a string.
    public static func passphrase(_ text: String) -> KeyProvider { .passphrase(Secret(text)) }

    /// The kind's name, as stored in the keyring: `passphrase`, `key-file`, `environment`, `in-memory`.
    public var kind: String {
        switch self {
        case .passphrase: "passphrase"
        case .keyFile: "key-file"
        case .environment: "environment"
        case .inMemory: "in-memory"
        }
    }

    public var description: String {
        switch self {
        case .passphrase: "passphrase (<redacted>)"
        case .keyFile(let path): "key file \(path)"
        case .environment(let name): "environment variable \(name)"
        case .inMemory: "in-memory key (<redacted>)"
        }
    }

    /// Produces the 32-byte wrapping key for a keyring. `kdf` holds the Argon2id parameters for passphrases.
    func wrappingKey(kdf: KDFParameters?) throws -> GuardedKey {
        switch self {
        case .passphrase(let secret):
            guard secret.count > 0 else {
                throw StorageError(.invalidArgument, "the passphrase is empty", tier: .secrets)
            }
            guard let kdf else {
                throw StorageError(.corrupt, "the keyring has no password-hash parameters", tier: .secrets)
            }
            return try GuardedKey(count: Sodium.keyBytes) { output in
                let derived = secret.withUnsafeBytes { password in
                    Sodium.passwordHash(
                        password, salt: kdf.salt, operations: kdf.operations, memory: kdf.memory, into: output)
                }
                guard derived else {
                    throw StorageError(
                        .io, "Argon2id could not get \(kdf.memory >> 20) MiB of memory to derive the key",
                        tier: .secrets)
                }
            }
        case .keyFile(let path):
            var bytes = try Self.readKeyFile(path)
            defer { bytes.withUnsafeMutableBytes { Sodium.memzero($0) } }
            return try GuardedKey(copying: try Self.parseKey(bytes, source: "the key file \(path)"))
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
                throw StorageError(
                    .invalidArgument, "the environment variable \(name) is not set", tier: .secrets,
                    recovery: "Export 32 random bytes as 64 hex characters in \(name)")
            }
            return try GuardedKey(
                copying: try Self.parseKey(Array(value.utf8), source: "the environment variable \(name)"))
        case .inMemory(let secret):
            guard secret.count == Sodium.keyBytes else {
                throw StorageError(
                    .invalidArgument, "an in-memory key must be \(Sodium.keyBytes) bytes, not \(secret.count)",
                    tier: .secrets)
            }
            return try GuardedKey(count: Sodium.keyBytes) { output in
                secret.withUnsafeBytes { output.copyMemory(from: $0) }
            }
        }
    }

    /// Reads a key file after checking that only its owner can read it.
    static func readKeyFile(_ path: String) throws -> [UInt8] {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
        } catch {
            throw error.storageError("cannot open the key file", tier: .secrets, path: path)
        }
        defer { Sys.close(fd) }
        let info: stat
        do { info = try Sys.fstat(fd) } catch {
            throw error.storageError("cannot inspect the key file", tier: .secrets, path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(.invalidArgument, "the key file is not a regular file", tier: .secrets, path: path)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw StorageError(
                .permissionDenied,
                "the key file is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0600",
                tier: .secrets, path: path, recovery: "Run: chmod 600 \(path)")
        }
        guard info.st_uid == geteuid() else {
            throw StorageError(.permissionDenied, "the key file belongs to another user", tier: .secrets, path: path)
        }
        return [UInt8](try AtomicFile.readAll(fd, path: path, maximumSize: 4096))
    }

    /// Accepts 32 raw bytes, 64 hex characters, or base64 of 32 bytes (surrounding white space ignored).
    static func parseKey(_ bytes: [UInt8], source: String) throws -> [UInt8] {
        if bytes.count == Sodium.keyBytes { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, let decoded = hexBytes(text) { return decoded }
        if let decoded = Data(base64Encoded: text), decoded.count == Sodium.keyBytes { return [UInt8](decoded) }
        throw StorageError(
            .invalidArgument, "\(source) does not hold a 32-byte key (raw, 64 hex characters, or base64)",
            tier: .secrets, recovery: "Create one with: head -c 32 /dev/urandom | xxd -p -c 64")
    }

    static func hexBytes(_ text: String) -> [UInt8]? { Hex.decode(text) }
}

/// Argon2id parameters, stored in the keyring so any later unlock derives the same key.
struct KDFParameters: Sendable, Hashable {
    var salt: [UInt8]
    var operations: UInt64
    var memory: Int
}
