import StrataCore
import StrataSecrets

/// The envelope of every sealed file of a repository (configuration, index, snapshot) and of a pack's header.
///
/// Layout: the magic `STBK`, one byte of format version, one byte of kind, a 24-byte random nonce, then the
/// XChaCha20-Poly1305 ciphertext and its 16-byte tag. The associated data is the first six bytes followed by the
/// file's name, so a file moved under another name, or put in another role, fails authentication.
enum SealedFile {
    /// What a sealed file holds.
    enum Kind: UInt8 {
        case configuration = 1
        case index = 2
        case snapshot = 3
        case packHeader = 4
        case pack = 5
    }

    static let magic: [UInt8] = Array("STBK".utf8)
    /// The format version this code writes and reads.
    static let version: UInt8 = 1
    /// The bytes before the nonce.
    static let prefixSize = 6
    /// Everything sealing adds to the plaintext.
    static let overhead = prefixSize + Sodium.nonceBytes + Sodium.tagBytes

    static func prefix(_ kind: Kind) -> [UInt8] { magic + [version, kind.rawValue] }

    /// Seals `plaintext` as a file named `name` of `kind`.
    static func seal(_ plaintext: [UInt8], kind: Kind, name: String, key: [UInt8]) -> [UInt8] {
        let head = prefix(kind)
        let nonce = Sodium.random(Sodium.nonceBytes)
        let sealed = plaintext.withUnsafeBytes { text in
            key.withUnsafeBytes { Sodium.seal(text, additionalData: head + Array(name.utf8), nonce: nonce, key: $0) }
        }
        return head + nonce + sealed
    }

    /// Opens what ``seal(_:kind:name:key:)`` made.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` (not a sealed file of this kind, or cut short),
    ///   `.unsupportedVersion` (a newer format), `.authenticationFailed` (edited bytes, another name or key),
    ///   each naming `path`.
    static func open(_ bytes: [UInt8], kind: Kind, name: String, key: [UInt8], path: String) throws -> [UInt8] {
        guard bytes.count >= overhead, Array(bytes[0..<4]) == magic else {
            throw StorageError(
                .corrupt, "the file is not a sealed backup file (bad magic or cut short)", path: path,
                recovery: "Run `check`; restore the file from a copy of the repository, or forget what needs it")
        }
        guard bytes[4] == version else {
            throw StorageError(
                .unsupportedVersion, "the file has format version \(bytes[4]); this Strata reads version \(version)",
                path: path, recovery: "Use a Strata that knows this repository format")
        }
        guard bytes[5] == kind.rawValue else {
            throw StorageError(
                .corrupt, "the file holds another kind of data (\(bytes[5])) than its place requires (\(kind))",
                path: path, recovery: "Run `check`; the file was moved or damaged")
        }
        let head = Array(bytes[0..<prefixSize])
        var plaintext = [UInt8](repeating: 0, count: bytes.count - overhead)
        let opened = bytes.withUnsafeBytes { all in
            key.withUnsafeBytes { keyBytes in
                plaintext.withUnsafeMutableBytes { output in
                    Sodium.open(
                        UnsafeRawBufferPointer(rebasing: all[(prefixSize + Sodium.nonceBytes)...]),
                        additionalData: head + Array(name.utf8),
                        nonce: UnsafeRawBufferPointer(rebasing: all[prefixSize..<(prefixSize + Sodium.nonceBytes)]),
                        key: keyBytes, into: output)
                }
            }
        }
        guard opened else {
            throw StorageError(
                .authenticationFailed, "the file fails its authentication: it was edited, damaged or renamed",
                path: path, recovery: "Run `check`; restore the file from a copy of the repository")
        }
        return plaintext
    }
}
