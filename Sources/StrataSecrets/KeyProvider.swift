import Foundation
package import StrataCore

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
    /// A file holding 32 random bytes (raw, as 64 hex characters, or base64; text that is not hex or base64 is
    /// refused, never taken as key bytes). It must be a regular file of mode 0600 or stricter, owned by the current
    /// user; anything else is refused.
    case keyFile(String)
    /// An environment variable holding 32 bytes as 64 hex characters or base64 (never its text as the key bytes).
    case environment(String)
    /// A 32-byte key held by the program (tests, or keys from another secret manager).
    case inMemory(Secret)

    /// A passphrase given as a string.
    public static func passphrase(_ text: String) -> KeyProvider { .passphrase(Secret(text)) }

    /// A passphrase read from a file, checked as key files are: a regular file (never a FIFO or a device, which
    /// could block the read), mode 0600 or stricter, owned by the current user. One final line break is dropped.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument`, `.symbolicLink`, `.unsafePermissions`, `.tooLarge`
    ///   (over 4 KiB), or an I/O error; each names the path.
    public static func passphrase(contentsOf path: String) throws -> KeyProvider {
        var bytes = try PrivateFile.read(path, what: "passphrase file", tier: .secrets, maximumSize: 4096)
        defer { bytes.withUnsafeMutableBytes { Sodium.memzero($0) } }
        var count = bytes.count
        if count > 0, bytes[count - 1] == 0x0A { count -= 1 }
        if count > 0, bytes[count - 1] == 0x0D { count -= 1 }
        return bytes.withUnsafeBytes { .passphrase(Secret(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<count]))) }
    }

    /// The environment variable that holds the key of the keyring shared by a program (`Storage`) and the `strata`
    /// tool: `STRATA_SECRETS_KEY`, 32 bytes as 64 hex characters or base64.
    public static let environmentVariable = "STRATA_SECRETS_KEY"

    /// The kind name of passphrases in `keyring.json`.
    package static let passphraseKind = "passphrase"

    /// Whether this is a passphrase (stretched with Argon2id) rather than a 32-byte key. The three kinds of key
    /// — key file, environment variable, in-memory — unlock the same keyrings when they hold the same bytes.
    public var isPassphrase: Bool {
        if case .passphrase = self { return true }
        return false
    }

    /// The kind's name, as stored in the keyring: `passphrase`, `key-file`, `environment`, `in-memory`.
    public var kind: String {
        switch self {
        case .passphrase: Self.passphraseKind
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
    package func wrappingKey(kdf: KDFParameters?) throws -> GuardedKey {
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
            return try GuardedKey(copying: try Self.parseKey(bytes, source: "the key file \(path)", allowsRaw: true))
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
                throw StorageError(
                    .invalidArgument, "the environment variable \(name) is not set", tier: .secrets,
                    recovery: "Export 32 random bytes as 64 hex characters in \(name)")
            }
            return try GuardedKey(
                copying: try Self.parseKey(
                    Array(value.utf8), source: "the environment variable \(name)", allowsRaw: false))
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

    /// Reads a key file after checking that only its owner can read it (see `PrivateFile`).
    static func readKeyFile(_ path: String) throws -> [UInt8] {
        try PrivateFile.read(path, what: "key file", tier: .secrets, maximumSize: 4096)
    }

    /// The 32-byte key a key file or an environment variable holds: 64 hex characters, or base64 of 32 bytes
    /// (surrounding white space ignored); in a key file also the 32 bytes themselves.
    ///
    /// Text is never taken as key bytes: a variable holds text only, and a key file of 32 bytes that are all
    /// printable text (`passwordpassword…`) is a password, not 32 random bytes (which are all printable once in
    /// some 10^14 keys). Taking such text as the key would make a guessable phrase a full-strength key.
    /// A backup repository's key file is read by the same rule (`RepositoryKey`), so one file opens both.
    /// - Parameters:
    ///   - allowsRaw: Whether 32 raw bytes are accepted (key files).
    ///   - tier: The tier the error names (`nil` for a backup repository's key).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument`, saying which forms are expected.
    package static func parseKey(
        _ bytes: [UInt8], source: String, allowsRaw: Bool, tier: Tier? = .secrets
    ) throws -> [UInt8] {
        let forms = allowsRaw ? "32 random bytes, 64 hex characters or base64" : "64 hex characters or base64"
        let isText = bytes.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if allowsRaw, bytes.count == Sodium.keyBytes, !isText { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, let decoded = hexBytes(text) { return decoded }
        if let decoded = Data(base64Encoded: text), decoded.count == Sodium.keyBytes { return [UInt8](decoded) }
        let seemsRawText = isText && text.utf8.count == Sodium.keyBytes
        let made = tier == .secrets ? "keyring" : "repository"
        throw StorageError(
            .invalidArgument,
            seemsRawText
                ? "\(source) holds 32 characters of text, not a key: text is never taken as key bytes (a key is "
                    + "\(forms))"
                : "\(source) does not hold a 32-byte key (\(forms))", tier: tier,
            recovery: seemsRawText
                ? "If this text is what a \(made) was made with, give the same bytes as hex (it opens the same "
                    + "\(made)): printf %s 'TEXT' | xxd -p -c 64; a new key: head -c 32 /dev/urandom | xxd -p -c 64"
                : "Create one with: head -c 32 /dev/urandom | xxd -p -c 64")
    }

    static func hexBytes(_ text: String) -> [UInt8]? { Hex.decode(text) }
}
