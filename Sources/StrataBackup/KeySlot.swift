import Foundation
import StrataCore
import StrataSecrets
import StrataSystem

/// One file of `keys/`: the master key sealed under a key derived from a passphrase or a key file.
///
/// The file is a CRC-32C (4 bytes, big-endian) of the JSON that follows it, so a flipped bit reads as damage
/// (`.corrupt`) and a wrong passphrase — an intact slot that does not open — as `.authenticationFailed`.
struct KeySlot: Codable {
    /// The slot format version (1).
    var version: Int
    /// `passphrase` or `key-file`.
    var kind: String
    /// The Argon2id salt (16 bytes, hex); empty for a key file.
    var salt: String
    /// The Argon2id passes; `nil` for a key file.
    var operations: UInt64?
    /// The Argon2id memory in bytes; `nil` for a key file.
    var memory: Int?
    /// The nonce of `sealedKey` (24 bytes, hex).
    var nonce: String
    /// The master key sealed with XChaCha20-Poly1305 under the derived key (48 bytes, hex); the associated data
    /// is `strata-backup key slot v1`.
    var sealedKey: String

    static let additionalData = Array("strata-backup key slot v1".utf8)

    /// A new slot sealing `master` under `key`.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for a passphrase cost that an open would refuse (past
    ///   `PasswordHashCost.moderate`), or an error of the key.
    static func make(sealing master: [UInt8], under key: RepositoryKey) throws -> KeySlot {
        guard !key.isPassphrase || accepts(key.cost) else {
            throw StorageError(
                .invalidArgument,
                "the Argon2id cost (\(key.cost.operations) passes over \(key.cost.memory) bytes) is outside the "
                    + "accepted range, from PasswordHashCost.minimumForTests to .moderate",
                recovery: "Use PasswordHashCost.interactive (the default) or .moderate")
        }
        let salt = Sodium.random(Sodium.saltBytes)
        let derived = try derive(key, salt: salt, cost: key.cost)
        let nonce = Sodium.random(Sodium.nonceBytes)
        let sealed = master.withUnsafeBytes { text in
            derived.withUnsafeBytes { Sodium.seal(text, additionalData: additionalData, nonce: nonce, key: $0) }
        }
        let isPassphrase = key.isPassphrase
        return KeySlot(
            version: 1, kind: isPassphrase ? "passphrase" : "key-file", salt: isPassphrase ? Hex.encode(salt) : "",
            operations: isPassphrase ? key.cost.operations : nil, memory: isPassphrase ? key.cost.memory : nil,
            nonce: Hex.encode(nonce), sealedKey: Hex.encode(sealed))
    }

    /// The key that seals the master key: Argon2id of the passphrase, or the keyed BLAKE2b of the key file.
    static func derive(_ key: RepositoryKey, salt: [UInt8], cost: PasswordHashCost) throws -> [UInt8] {
        try Sodium.ensureReady()
        switch key.source {
        case .passphrase(let passphrase):
            guard !passphrase.isEmpty else {
                throw StorageError(.invalidArgument, "the passphrase is empty", recovery: "Give a passphrase")
            }
            var output = [UInt8](repeating: 0, count: Sodium.keyBytes)
            let done = passphrase.withUnsafeBytes { text in
                output.withUnsafeMutableBytes {
                    Sodium.passwordHash(text, salt: salt, operations: cost.operations, memory: cost.memory, into: $0)
                }
            }
            guard done else {
                throw StorageError(
                    .io, "Argon2id could not get \(cost.memory) bytes of memory",
                    recovery: "Free memory, or use a key file")
            }
            return output
        case .keyFile(let path):
            let bytes = try key.keyFileBytes(path)
            return bytes.withUnsafeBytes {
                Sodium.keyedHash(Array("strata-backup key file v1".utf8), key: $0, length: Sodium.keyBytes)
            }
        }
    }

    /// The file's bytes.
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = Array(try encoder.encode(self))
        let sum = CRC32C.checksum(body)
        return [
            UInt8(sum >> 24), UInt8(truncatingIfNeeded: sum >> 16), UInt8(truncatingIfNeeded: sum >> 8),
            UInt8(truncatingIfNeeded: sum),
        ] + body
    }

    /// Reads a slot file.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` (damaged) or `.unsupportedVersion`, naming `path`.
    static func decode(_ bytes: [UInt8], path: String) throws -> KeySlot {
        let damaged = StorageError(
            .corrupt, "the key slot is damaged (its checksum does not match)", path: path,
            recovery: "Unlock with another passphrase or key file of the repository, or restore the slot from a copy")
        guard bytes.count > 4 else { throw damaged }
        let body = Array(bytes[4...])
        let stored = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard CRC32C.checksum(body) == stored else { throw damaged }
        guard let slot = try? JSONDecoder().decode(KeySlot.self, from: Data(body)) else { throw damaged }
        guard slot.version == 1 else {
            throw StorageError(
                .unsupportedVersion, "the key slot has format version \(slot.version); this Strata reads version 1",
                path: path, recovery: "Use a Strata that knows this repository format")
        }
        return slot
    }

    /// Whether a slot may ask for `cost`: from `PasswordHashCost.minimumForTests` to `.moderate`, so a damaged or
    /// hostile slot cannot make an open allocate gigabytes.
    static func accepts(_ cost: PasswordHashCost) -> Bool {
        let (least, most) = (PasswordHashCost.minimumForTests, PasswordHashCost.moderate)
        return (least.operations...most.operations).contains(cost.operations)
            && (least.memory...most.memory).contains(cost.memory)
    }

    /// Whether a passphrase opens this slot (else a key file).
    var isPassphrase: Bool { kind == "passphrase" }

    /// The Argon2id cost of a passphrase slot, checked against the accepted range before any hashing.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` for a cost outside
    ///   `PasswordHashCost.minimumForTests`...`PasswordHashCost.moderate`, naming `path`.
    func passphraseCost(path: String) throws -> PasswordHashCost {
        let cost = PasswordHashCost(
            operations: operations ?? PasswordHashCost.interactive.operations,
            memory: memory ?? PasswordHashCost.interactive.memory)
        guard Self.accepts(cost) else {
            throw StorageError(
                .corrupt, "the key slot asks for an Argon2id cost outside the accepted range", path: path)
        }
        return cost
    }

    /// The master key, when `key` opens this slot; `nil` when it does not (another passphrase or key file).
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` for a slot whose fields are unusable, or an error reading the
    ///   key file.
    func open(with key: RepositoryKey, path: String) throws -> [UInt8]? {
        guard key.isPassphrase == isPassphrase else { return nil }
        guard let nonce = Hex.decode(nonce), nonce.count == Sodium.nonceBytes, let sealed = Hex.decode(sealedKey),
            sealed.count == Sodium.keyBytes + Sodium.tagBytes, let salt = Hex.decode(salt),
            !isPassphrase || salt.count == Sodium.saltBytes
        else { throw StorageError(.corrupt, "the key slot has malformed fields", path: path) }
        let cost = isPassphrase ? try passphraseCost(path: path) : PasswordHashCost.interactive
        let derived = try Self.derive(key, salt: salt, cost: cost)
        var master = [UInt8](repeating: 0, count: Sodium.keyBytes)
        let opened = sealed.withUnsafeBytes { text in
            nonce.withUnsafeBytes { nonceBytes in
                derived.withUnsafeBytes { keyBytes in
                    master.withUnsafeMutableBytes {
                        Sodium.open(
                            text, additionalData: Self.additionalData, nonce: nonceBytes, key: keyBytes, into: $0)
                    }
                }
            }
        }
        return opened ? master : nil
    }
}
