package import Foundation
package import StrataCore

/// `keyring.json`: which provider wraps the data key, the Argon2id parameters for passphrases, and the wrapped
/// data key itself.
///
/// Version 2 wraps the name key beside the data key (a rotation replaces the data key but keeps the item file
/// names), and marks a keyring whose item manifest must exist (see ``ItemManifest``). Version 1 wraps the data
/// key only; the name key is derived from it. New keyrings, and every rotated one, are version 2.
///
/// The file is canonical: the reader re-serializes what it parsed and refuses the file unless the bytes are
/// identical, and every field but the wrapped key is the associated data of the wrap. So any edit — of a
/// parameter, the name, the id, even white space — is refused with a typed error, never silently accepted.
package struct KeyringFile: Sendable, Hashable {
    static let format = "strata-keyring"
    static let version = 2

    var version = Self.version
    var name: String
    package var id: [UInt8]
    package var provider: String
    var kdf: KDFParameters?
    var nonce: [UInt8]
    var wrappedKey: [UInt8]

    /// Everything but the wrap, as bound to it.
    var associatedData: [UInt8] { Array("strata keyring wrap v1\n".utf8) + Array(header(includingWrap: false).utf8) }

    package var serialized: Data { Data(header(includingWrap: true).utf8) }

    private func header(includingWrap: Bool) -> String {
        var lines = [
            "{",
            "  \"format\": \"\(Self.format)\",",
            "  \"version\": \(version),",
            "  \"name\": \"\(name)\",",
            "  \"id\": \"\(hex(id))\",",
            "  \"provider\": \"\(provider)\",",
        ]
        if let kdf {
            lines.append(
                "  \"kdf\": {\"algorithm\": \"argon2id13\", \"operations\": \(kdf.operations), \"memory\": \(kdf.memory), \"salt\": \"\(hex(kdf.salt))\"},"
            )
        } else {
            lines.append("  \"kdf\": null,")
        }
        if includingWrap {
            lines.append("  \"nonce\": \"\(hex(nonce))\",")
            lines.append("  \"wrappedKey\": \"\(hex(wrappedKey))\"")
        } else {
            lines.append("  \"wrap\": \"xchacha20poly1305\"")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses and checks a keyring file.
    /// - Throws: ``StorageError`` `.unsupportedVersion` for a newer format, `.corrupt` for anything else wrong.
    package static func parse(_ data: Data, expectedName: String, path: String) throws -> KeyringFile {
        func corrupt(_ why: String) -> StorageError {
            StorageError(
                .corrupt, "the keyring file is damaged or was edited: \(why)", tier: .secrets, path: path,
                recovery: "Restore keyring.json from a backup; the items cannot be read without it")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw corrupt("not a JSON object")
        }
        guard object["format"] as? String == format else { throw corrupt("not a Strata keyring") }
        guard let version = object["version"] as? Int else { throw corrupt("no version") }
        guard version <= Self.version else {
            throw StorageError(
                .unsupportedVersion,
                "the keyring has format version \(version); this program reads up to \(Self.version)",
                tier: .secrets, path: path, recovery: "Open it with the newer program that wrote it")
        }
        guard version >= 1 else { throw corrupt("unknown version \(version)") }
        guard let name = object["name"] as? String, name == expectedName else {
            throw corrupt("it names another keyring than the folder it is in")
        }
        guard let id = (object["id"] as? String).flatMap(KeyProvider.hexBytes), id.count == 16 else {
            throw corrupt("a bad id")
        }
        guard let provider = object["provider"] as? String,
            ["passphrase", "key-file", "environment", "in-memory"].contains(provider)
        else { throw corrupt("an unknown key provider") }
        var kdf: KDFParameters?
        if let parameters = object["kdf"] as? [String: Any] {
            guard parameters["algorithm"] as? String == "argon2id13",
                let operations = parameters["operations"] as? Int, (1...64).contains(operations),
                let memory = parameters["memory"] as? Int, (8192...(4 << 30)).contains(memory),
                let salt = (parameters["salt"] as? String).flatMap(KeyProvider.hexBytes), salt.count == Sodium.saltBytes
            else { throw corrupt("bad password-hash parameters") }
            kdf = KDFParameters(salt: salt, operations: UInt64(operations), memory: memory)
        }
        guard (provider == "passphrase") == (kdf != nil) else {
            throw corrupt("password-hash parameters do not fit the provider")
        }
        guard let nonce = (object["nonce"] as? String).flatMap(KeyProvider.hexBytes), nonce.count == Sodium.nonceBytes,
            let wrapped = (object["wrappedKey"] as? String).flatMap(KeyProvider.hexBytes),
            wrapped.count == (version == 1 ? 1 : 2) * Sodium.keyBytes + Sodium.tagBytes
        else { throw corrupt("a bad wrapped key") }
        let file = KeyringFile(
            version: version, name: name, id: id, provider: provider, kdf: kdf, nonce: nonce, wrappedKey: wrapped)
        guard file.serialized == data else { throw corrupt("it is not in the canonical form Strata writes") }
        return file
    }

    /// Wraps a data key and a name key under a wrapping key into a new keyring file (version 2).
    package static func wrapping(
        _ dataKey: GuardedKey, names: GuardedKey, name: String, id: [UInt8], provider: String, kdf: KDFParameters?,
        with wrappingKey: GuardedKey
    ) throws -> KeyringFile {
        var file = KeyringFile(
            name: name, id: id, provider: provider, kdf: kdf, nonce: Sodium.random(Sodium.nonceBytes), wrappedKey: [])
        let associatedData = file.associatedData
        let both = try GuardedKey(count: 2 * Sodium.keyBytes) { output in
            try dataKey.withBytes { output.copyMemory(from: $0) }
            try names.withBytes {
                UnsafeMutableRawBufferPointer(rebasing: output[Sodium.keyBytes...]).copyMemory(from: $0)
            }
        }
        defer { both.wipe() }
        file.wrappedKey = try wrappingKey.withBytes { wrapping in
            try both.withBytes { data in
                Sodium.seal(data, additionalData: associatedData, nonce: file.nonce, key: wrapping)
            }
        }
        return file
    }

    /// Unwraps the data key and the name key (derived from the data key in version 1).
    /// - Throws: ``StorageError`` `.authenticationFailed`: the wrong passphrase or key, or a tampered keyring.
    package func unwrap(with wrappingKey: GuardedKey, path: String) throws -> (data: GuardedKey, names: GuardedKey) {
        let associatedData = self.associatedData
        let both = try GuardedKey(count: wrappedKey.count - Sodium.tagBytes) { output in
            let opened = try wrappingKey.withBytes { wrapping in
                wrappedKey.withUnsafeBytes { sealed in
                    nonce.withUnsafeBytes { nonce in
                        Sodium.open(sealed, additionalData: associatedData, nonce: nonce, key: wrapping, into: output)
                    }
                }
            }
            guard opened else {
                throw StorageError(
                    .authenticationFailed,
                    "the key does not open this keyring: a wrong passphrase or key, or a tampered keyring file",
                    tier: .secrets, path: path, recovery: "Check the passphrase or key; nothing was changed")
            }
        }
        guard version >= 2 else { return (both, try both.derive("strata item names")) }
        defer { both.wipe() }
        let data = try both.slice(0..<Sodium.keyBytes)
        return (data, try both.slice(Sodium.keyBytes..<(2 * Sodium.keyBytes)))
    }
}

extension KeyringFile {
    /// Unwraps the data key and the name key with `provider`, after checking that it is the kind of key the keyring
    /// was made with and, for a passphrase, that the password hash costs no more than `configuration` allows.
    /// - Throws: ``StorageError`` `.invalidArgument` for a passphrase on a key-protected keyring or the reverse,
    ///   `.limitExceeded` for Argon2id costs over the limit (refused before deriving), `.authenticationFailed` for a
    ///   wrong passphrase or key; each names `path`.
    package func unwrap(with provider: KeyProvider, configuration: SecretsConfiguration, path: String) throws -> (
        data: GuardedKey, names: GuardedKey
    ) {
        let isPassphrase = self.provider == KeyProvider.passphraseKind
        guard isPassphrase == provider.isPassphrase else {
            throw StorageError(
                .invalidArgument,
                "the keyring is protected by \(isPassphrase ? "a passphrase" : "a 32-byte key"), not by \(provider.isPassphrase ? "a passphrase" : "a key")",
                tier: .secrets, path: path,
                recovery: isPassphrase
                    ? "Unlock it with its passphrase"
                    : "Unlock it with its key: a key file (--secrets-key-file) or \(KeyProvider.environmentVariable)")
        }
        if let kdf { try configuration.checkPasswordHashCost(kdf, path: path) }
        let wrapping = try provider.wrappingKey(kdf: kdf)
        defer { wrapping.wipe() }
        return try unwrap(with: wrapping, path: path)
    }
}

func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
