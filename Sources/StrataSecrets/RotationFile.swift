import Foundation
import StrataCore

/// `rotation.key`: the next data key of a rotation under way, sealed under the current one, so that every
/// process holding the current key can read items already re-sealed, and the next unlock can finish the rotation.
///
/// `STRATASR`, a version byte, the keyring's id, the next key's check value (``GuardedKey/check()``: a process
/// whose key it is knows the rotation already switched `keyring.json`), a nonce and the next key sealed with
/// XChaCha20-Poly1305 under the current key's rotation key; everything before the nonce is the associated data.
/// It exists only while a rotation is under way: once removed, the old key opens nothing written since.
struct RotationFile: Sendable, Equatable {
    static let fileName = "rotation.key"
    static let magic = Array("STRATASR".utf8)
    static let version: UInt8 = 1

    var nextCheck: [UInt8]
    var nonce: [UInt8]
    var sealedKey: [UInt8]

    static func associatedData(keyringID: [UInt8], nextCheck: [UInt8]) -> [UInt8] {
        magic + [version] + keyringID + nextCheck
    }

    /// Seals `next` under `current`.
    static func sealing(_ next: DataKeys, keyringID: [UInt8], under current: DataKeys) throws -> RotationFile {
        let nonce = Sodium.random(Sodium.nonceBytes)
        let associated = associatedData(keyringID: keyringID, nextCheck: next.check)
        let sealed = try current.rotation.withBytes { wrap in
            try next.data.withBytes { Sodium.seal($0, additionalData: associated, nonce: nonce, key: wrap) }
        }
        return RotationFile(nextCheck: next.check, nonce: nonce, sealedKey: sealed)
    }

    func serialized(keyringID: [UInt8]) -> Data {
        Data(Self.associatedData(keyringID: keyringID, nextCheck: nextCheck) + nonce + sealedKey)
    }

    /// Parses the file (its authenticity is checked by ``open(keyringID:with:path:)``).
    /// - Throws: ``StorageError`` `.corrupt` for a file of the wrong shape or keyring.
    static func parse(_ data: Data, keyringID: [UInt8], path: String) throws -> RotationFile {
        let bytes = [UInt8](data)
        let headerSize = magic.count + 1 + keyringID.count + 16
        guard bytes.count == headerSize + Sodium.nonceBytes + Sodium.keyBytes + Sodium.tagBytes,
            bytes.starts(with: magic), bytes[magic.count] == version,
            Array(bytes[(magic.count + 1)..<(headerSize - 16)]) == keyringID
        else {
            throw StorageError(
                .corrupt, "the rotation record is damaged or from another keyring", tier: .secrets, path: path,
                recovery: "Restore the keyring folder from a backup")
        }
        return RotationFile(
            nextCheck: Array(bytes[(headerSize - 16)..<headerSize]),
            nonce: Array(bytes[headerSize..<(headerSize + Sodium.nonceBytes)]),
            sealedKey: Array(bytes[(headerSize + Sodium.nonceBytes)...]))
    }

    /// Opens the next data key with the current one.
    /// - Throws: ``StorageError`` `.corrupt` when it does not open (edited, or sealed under another key).
    func open(keyringID: [UInt8], with current: DataKeys, path: String) throws -> GuardedKey {
        let associated = Self.associatedData(keyringID: keyringID, nextCheck: nextCheck)
        let key = try GuardedKey(count: Sodium.keyBytes) { output in
            let opened = try current.rotation.withBytes { wrap in
                sealedKey.withUnsafeBytes { sealed in
                    nonce.withUnsafeBytes {
                        Sodium.open(sealed, additionalData: associated, nonce: $0, key: wrap, into: output)
                    }
                }
            }
            guard opened else {
                throw StorageError(
                    .corrupt, "the rotation record does not open with the keyring's key: it was edited", tier: .secrets,
                    path: path, recovery: "Restore the keyring folder from a backup")
            }
        }
        guard try key.check() == nextCheck else {
            throw StorageError(
                .corrupt, "the rotation record's key does not match its check value", tier: .secrets, path: path)
        }
        return key
    }
}
