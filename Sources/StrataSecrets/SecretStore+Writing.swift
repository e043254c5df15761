import Foundation
import StrataCore

extension SecretStore {
    /// Stores `value` as the item `identity`, replacing `existing` (whose creation date, and label unless a new
    /// one is given, it keeps): the path of ``set(_:service:account:label:accessibility:)``,
    /// ``update(service:account:accessibility:_:)`` and imports. The caller holds the keyring's lock exclusively.
    ///
    /// The item's modification time is its generation (see ``ItemManifest``): strictly after the manifest's
    /// entry, and recorded there once the item file is durable.
    ///
    /// When the item it replaces lay under the first format's name (an identity with a NUL), that file is
    /// removed once the new one is durable: a crash in between leaves both, and the new name wins.
    func store(
        _ value: Secret, identity: ItemIdentity, label: String?,
        replacing existing: (
            fileName: String, record: ItemEnvelope.Record, accessibility: SecretAccessibility, secret: Secret?
        )?,
        accessibility: SecretAccessibility, keyringID: [UInt8], fileName: String, in folder: DirectoryHandle
    ) throws {
        let now = Date()
        // Sealed under the key the manifest is tagged under: the keyring's current key, also during a rotation.
        let (manifest, owner) = try currentManifest(in: folder)
        let key = try sealingKey(accessibility, of: owner)
        let record = newRecord(
            identity, size: value.count, label: label, replacing: existing?.record, fileName: fileName,
            in: manifest, now: now)
        let modified = record.modified
        try seal(
            value, as: record, accessibility: accessibility, keyringID: keyringID, key: key, fileName: fileName,
            in: folder)
        var removed: String?
        if let existing, existing.fileName != fileName, try removeItemFile(existing.fileName, in: folder) {
            removed = existing.fileName
        }
        // After the item is durable: a crash before this leaves an item newer than its entry, which reads. The
        // manifest's rename is made durable by the folder's next fsync (see ``advanceManifest(in:as:syncsFolder:_:)``).
        try advanceManifest(in: folder, syncsFolder: false) { manifest in
            manifest.entries[fileName] = ItemManifest.Entry(modified: modified.timeIntervalSince1970, deleted: false)
            if let removed { manifest.entries[removed] = manifest.tombstone(removed, now: now) }
        }
    }

    /// The class key of `accessibility` under `owner`, the data key the manifest is tagged under.
    /// - Throws: ``StorageError`` `.locked` when it was wiped.
    func sealingKey(_ accessibility: SecretAccessibility, of owner: DataKeys) throws -> GuardedKey {
        let key = owner.classKey(accessibility)
        guard !key.isWiped else {
            throw StorageError(
                .locked, "storing a \(accessibility.rawValue) item needs the store unlocked", tier: .secrets,
                path: directory, recovery: "Call unlock(with:) first")
        }
        return key
    }

    /// The attributes of a new version of an item: the creation date and (unless `label` is given) the label of
    /// the version it replaces, and as its generation a modification time strictly after the manifest's entry,
    /// so that an older copy can be told apart.
    func newRecord(
        _ identity: ItemIdentity, size: Int, label: String?, replacing existing: ItemEnvelope.Record?,
        fileName: String, in manifest: ItemManifest, now: Date
    ) -> ItemEnvelope.Record {
        ItemEnvelope.Record(
            service: identity.service.string, account: identity.account.string,
            label: label ?? existing?.label ?? "", created: existing?.created ?? now,
            modified: manifest.nextGeneration(fileName, now: now), valueSize: size)
    }

    /// The one sealing path: checks the value against ``SecretsConfiguration/valueLimit``, seals the attributes
    /// and the value under `key` and replaces the file `fileName` atomically (temporary file, `fsync`, rename,
    /// folder `fsync`). Every write of an item ends here, so limits and errors cannot drift between callers; a
    /// re-sealing under a new key goes through it with the record it read.
    /// - Throws: ``StorageError`` `.tooLarge` (naming the item, with the way out), or a write error (the previous
    ///   file stays).
    func seal(
        _ value: Secret, as record: ItemEnvelope.Record, accessibility: SecretAccessibility, keyringID: [UInt8],
        key: GuardedKey, fileName: String, in folder: DirectoryHandle
    ) throws {
        let file = try sealedFile(
            value, as: record, accessibility: accessibility, keyringID: keyringID, key: key, fileName: fileName)
        try AtomicFile.write(file, in: folder, name: fileName)
    }

    /// The bytes of an item file: checks the value against ``SecretsConfiguration/valueLimit`` and seals the
    /// attributes and the value under `key` (see ``seal(_:as:accessibility:keyringID:key:fileName:in:)``).
    /// - Throws: ``StorageError`` `.tooLarge`, naming the item.
    func sealedFile(
        _ value: Secret, as record: ItemEnvelope.Record, accessibility: SecretAccessibility, keyringID: [UInt8],
        key: GuardedKey, fileName: String
    ) throws -> Data {
        try checkValueSize(value.count, of: ItemIdentity(record))
        return try value.withUnsafeBytes {
            try ItemEnvelope.seal(
                record, value: $0, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key)
        }
    }

    /// Refuses a value over ``SecretsConfiguration/valueLimit`` with `too-large` naming the item.
    func checkValueSize(_ size: Int, of identity: ItemIdentity) throws {
        guard size <= configuration.valueLimit else {
            var error = StorageError(
                .tooLarge, "a secret of \(size) bytes is over the limit of \(configuration.valueLimit)",
                tier: .secrets, key: Self.displayKey(identity),
                recovery: "Encrypt large data in the files tier and keep only its key here", suggestedTier: .files)
            error.attribute = "value"
            throw error
        }
    }
}
