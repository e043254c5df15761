import Foundation
import StrataCore
import StrataPostgresClient
public import StrataSecrets
import Synchronization

extension PostgresSecrets {
    /// Re-wraps the data key under another key or passphrase, in one transaction: items are not touched, and every
    /// machine must then unlock with the new key (machines that are unlocked read on, with the data key they hold).
    /// - Throws: ``/StrataCore/StorageError`` `.locked` when this instance is locked, `.rolledBack` or `.corrupt`
    ///   for a keyring tampered with, or the server's errors (nothing changes).
    public func changeKey(to provider: KeyProvider) throws {
        let (wrapping, kdf) = try newWrapping(provider)
        defer { wrapping.wipe() }
        try rekey(operation: "change key", provider: provider) { keyring, _ in
            guard !keyring.keys.isLocked else { throw notUnlocked("changing the key") }
            let file = try KeyringFile.wrapping(
                keyring.keys.data, names: keyring.names, name: self.keyring, id: keyring.id, provider: provider.kind,
                kdf: kdf, with: wrapping)
            return Rekeying(file: file, keys: keyring.keys, manifest: keyring.manifest)
        }
    }

    /// Replaces the data key with a new random one and re-seals every item under it, in one transaction: a reader
    /// on any machine sees every item under the old key or every item under the new. Other machines follow at their
    /// next read, unwrapping the new keyring file with the key they were unlocked with.
    /// - Parameter provider: The key to wrap the new data key under. The default (`nil`) keeps the key it is
    ///   wrapped under now.
    /// - Returns: How many items were re-sealed.
    /// - Throws: ``/StrataCore/StorageError`` `.locked` when this instance is locked, `.rolledBack` or `.corrupt`
    ///   for an item that does not open (nothing changes then), or the server's errors.
    @discardableResult
    public func rotate(with provider: KeyProvider? = nil) throws -> Int {
        let keepsKey = provider == nil
        let provider = try provider ?? state.withLock { $0.provider } ?? { throw notUnlocked("rotating the key") }()
        let (wrapping, kdf) = try newWrapping(provider)
        defer { wrapping.wipe() }
        let next = try DataKeys(GuardedKey.random())
        var count = 0
        try rekey(operation: "rotate", provider: provider) { keyring, connection in
            guard !keyring.keys.isLocked else { throw notUnlocked("rotating the key") }
            // Wrapping the new data key under the key this store was unlocked with would undo a change of key made
            // on another machine since (the old key would open the keyring again).
            if keepsKey, state.withLock({ $0.keyringBytes != $0.unwrappedKeyringBytes }) {
                throw StorageError(
                    .invalidArgument,
                    "the keyring's key was changed on another machine since this store was unlocked: a rotation under "
                        + "the key it holds would undo that change", tier: .secrets, path: location,
                    recovery: "Pass the keyring's new key: rotate(with:)")
            }
            let rows = try connection.query(PostgresSecretsSQL.items, [.text(self.keyring)], operation: "rotate")
            var resealed: [(name: String, item: [UInt8])] = []
            var listed = Set<String>()
            for row in 0..<rows.rowCount {
                let name = rows.text(row, 0)
                listed.insert(name)
                guard let opened = try open(name, hex: rows.text(row, 1), in: keyring, identity: nil, value: true),
                    let secret = opened.secret
                else { continue }
                let sealed = try secret.withUnsafeBytes {
                    try ItemEnvelope.seal(
                        opened.record, value: $0, accessibility: opened.accessibility, keyringID: keyring.id,
                        fileName: name, key: next.classKey(opened.accessibility))
                }
                resealed.append((name, [UInt8](sealed)))
            }
            try checkNoRowMissing(in: keyring, listed: listed)
            count = resealed.count
            let file = try KeyringFile.wrapping(
                next.data, names: keyring.names, name: self.keyring, id: keyring.id, provider: provider.kind,
                kdf: kdf, with: wrapping)
            var manifest = keyring.manifest
            manifest.previousKeyCheck = keyring.keys.check
            manifest.keyCheck = next.check
            return Rekeying(file: file, keys: next, manifest: manifest, items: resealed)
        }
        return count
    }

    /// Writes a new keyring file, manifest (its sequence number one higher, tagged under the new keys) and
    /// re-sealed items in one transaction under the keyring row's lock, and makes them this instance's, with
    /// `provider` as the key that opens the file, once committed.
    /// - Parameter change: Gets the keyring as the row has it, and returns what to write.
    private func rekey(
        operation: String, provider: KeyProvider, _ change: (CurrentKeyring, PostgresConnection) throws -> Rekeying
    ) throws {
        var written: (keyring: CurrentKeyring, file: KeyringFile)?
        try write(nil, operation: operation) { connection, keyring in
            let rekeying = try change(keyring, connection)
            for item in rekeying.items {
                _ = try connection.query(
                    PostgresSecretsSQL.reseal, [.text(self.keyring), .text(item.name), .binary(item.item)],
                    operation: operation)
            }
            var rekeyed = keyring
            rekeyed.keys = rekeying.keys
            let committed = try commit(rekeying.manifest, keyring: rekeyed) { sequence, bytes in
                _ = try connection.query(
                    PostgresSecretsSQL.rekey,
                    [
                        .text(self.keyring), .binary([UInt8](rekeying.file.serialized)), .binary(bytes),
                        .text(String(sequence)),
                    ],
                    operation: operation)
            }
            written = (committed, rekeying.file)
            // Remembered below with its file, once the transaction committed.
            return ((), nil)
        }
        if let written { remember(written.keyring, file: written.file, provider: provider) }
    }
}
