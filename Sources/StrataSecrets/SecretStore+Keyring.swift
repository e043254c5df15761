import Foundation
import StrataCore
import StrataSystem

extension SecretStore {
    /// Checks that the keyring exists, without a key and without creating anything.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no keyring of this name, `.corrupt` when its
    ///   `keyring.json` is missing but item files remain (the error names them and the way out), or what reading the
    ///   keyring file throws.
    public func requireKeyring() throws {
        if try readKeyring() == nil { throw try missingKeyring() }
    }

    /// The error for a keyring that does not exist (thrown directly when item files remain without it).
    func missingKeyring() throws -> StorageError {
        try refuseMissingKeyringOverItems()
        var error = StorageError(
            .notFound, "there is no keyring '\(keyring)'", tier: .secrets, path: keyringPath,
            recovery: "Check the keyring's name; a keyring is created by the first item stored in it")
        error.collection = keyring
        return error
    }

    /// Creates the keyring: its folder and `keyring.json` with a new random data key wrapped under `provider`.
    ///
    /// Runs under the keyring's exclusive lock and checks again there: two processes must not make two data
    /// keys, and a keyring is never made over item files (see ``refuseMissingKeyringOverItems()``).
    /// - Returns: The keyring file, and the data key (that of a keyring another process made meanwhile, if so).
    func createKeyring(with provider: KeyProvider) throws -> (KeyringFile, (data: GuardedKey, names: GuardedKey)) {
        // The wrapping key first: a key file that cannot be read (or an empty passphrase) creates nothing.
        let kdf = provider.isPassphrase ? configuration.newKDFParameters() : nil
        let wrapping = try provider.wrappingKey(kdf: kdf)
        defer { wrapping.wipe() }
        let folder = try keyringFolder(create: true)
        return try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
            if let raced = try readKeyring() { return (raced, try unwrap(raced, with: provider)) }
            try refuseMissingKeyringOverItems()
            let dataKey = try GuardedKey.random()
            let names = try GuardedKey.random()
            let id = Sodium.random(16)
            // The empty manifest first: a keyring file of version 2 requires it.
            try AtomicFile.write(
                ItemManifest(keyCheck: dataKey.check()).serialized(keyringID: id, key: DataKeys(dataKey).manifest),
                in: folder, name: ItemManifest.fileName)
            let file = try KeyringFile.wrapping(
                dataKey, names: names, name: keyring, id: id, provider: provider.kind, kdf: kdf, with: wrapping)
            try AtomicFile.write(file.serialized, in: folder, name: "keyring.json")
            return (file, (dataKey, names))
        }
    }

    /// Throws when the keyring folder holds item files but no `keyring.json`: the items were sealed under the
    /// data key that file wraps, so a new keyring would make any passphrase "work" and hide every item.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt`, naming the keyring file that is missing, the item files, and
    ///   the two ways out.
    func refuseMissingKeyringOverItems() throws {
        guard let folder = try existingKeyringFolder() else { return }
        do throws(Errno) {
            _ = try folder.entries()
        } catch {
            throw error.storageError("cannot list the keyring folder", tier: .secrets, path: directory)
        }
        // Item files, and the small items the manifest holds (counted without the key).
        let items = itemNamesWithoutKey()
        guard !items.isEmpty else { return }
        let shown = items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : "")
        var error = StorageError(
            .corrupt,
            "keyring.json is missing but \(items.count) item(s) remain (\(shown)); a new keyring cannot open them",
            tier: .secrets, path: keyringPath,
            recovery:
                "Restore keyring.json from a backup to read the items again; or, to start over without them, move the "
                + "*.item files and \(ItemManifest.fileName) out of \(directory)")
        error.collection = keyring
        throw error
    }
}
