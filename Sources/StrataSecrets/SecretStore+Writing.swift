import Foundation
import StrataCore

extension SecretStore {
    /// Stores `value` as the item `identity`, replacing `existing` (whose creation date, and label unless a new
    /// one is given, it keeps): the path of ``set(_:service:account:label:accessibility:)``,
    /// ``update(service:account:accessibility:_:)`` and imports. The caller holds the keyring's lock exclusively,
    /// and may pass the manifest it read under it (``currentManifest(in:)``), which is read otherwise.
    ///
    /// The item's modification time is its generation (see ``ItemManifest``): strictly after the manifest's
    /// entry, and recorded there in the same write (see ``replaceItems(_:in:manifest:owner:now:timer:_:)``).
    ///
    /// When the item it replaces lay under the first format's name (an identity with a NUL), that file is
    /// removed once the new one is in place: a crash in between leaves both, and the new name wins.
    func store(
        _ value: Secret, identity: ItemIdentity, label: String?,
        replacing existing: (
            fileName: String, record: ItemEnvelope.Record, accessibility: SecretAccessibility, secret: Secret?
        )?,
        accessibility: SecretAccessibility, keyringID: [UInt8], fileName: String, in folder: DirectoryHandle,
        manifest known: (manifest: ItemManifest, owner: DataKeys)? = nil
    ) throws {
        let now = Date()
        // Sealed under the key the manifest is tagged under: the keyring's current key, also during a rotation.
        let (manifest, owner) = try known ?? currentManifest(in: folder)
        let key = try sealingKey(accessibility, of: owner)
        let record = newRecord(
            identity, size: value.count, label: label, replacing: existing?.record, fileName: fileName,
            in: manifest, now: now)
        try replaceItems([fileName], in: folder, manifest: manifest, owner: owner, now: now) { _ in
            let file = try sealedFile(
                value, as: record, accessibility: accessibility, keyringID: keyringID, key: key, fileName: fileName)
            return (file, record.modified, existing.flatMap { $0.fileName != fileName ? $0.fileName : nil })
        }
    }

    /// Replaces item files and records their new generations in the manifest with two flushes in all, as one
    /// file's atomic replace has: the new item files and the new manifest are written beside their targets and
    /// flushed together, the items are renamed into place (and files they supersede removed), the folder is
    /// flushed, and only then is the manifest renamed. The caller holds the keyring's lock exclusively and read
    /// `manifest` under it.
    ///
    /// Order is what rollback detection needs: on disk the manifest is never newer than the items. A crash (or a
    /// power loss) before the manifest's rename leaves items newer than their entries, which read; the manifest's
    /// content is on disk before its rename, so it is never torn, and its rename becomes durable with the
    /// folder's next flush — a power loss before that keeps the previous manifest, whole.
    /// - Parameters:
    ///   - fileNames: The item files, distinct.
    ///   - manifest: The manifest the items' generations were computed from (``currentManifest(in:)``).
    ///   - owner: The data key the items are sealed under, which tags the manifest.
    ///   - now: When, for the tombstones of superseded files.
    ///   - timer: Times the steps, for the benchmark's breakdown of a batch. The default is none.
    ///   - item: Gives the sealed file of `fileNames[index]`, its generation, and a file it supersedes (an item
    ///     under the first format's name), if any; called once per item, in order, before anything is renamed.
    /// - Throws: What `item` throws (nothing written then), or a write error (see
    ///   ``/StrataCore/AtomicFile/writeAll(in:names:permissions:renamesLastAfterFolderSync:beforeFolderSync:timer:_:)``).
    func replaceItems(
        _ fileNames: [String], in folder: DirectoryHandle, manifest: ItemManifest, owner: DataKeys, now: Date,
        timer: StageTimer? = nil, _ item: (Int) throws -> (file: Data, modified: Date, supersedes: String?)
    ) throws {
        var manifest = manifest
        manifest.keyCheck = owner.check
        var superseded: [String] = []
        var manifestBytes = Data()
        let keyringID = try manifestKeyringID()
        try AtomicFile.writeAll(
            in: folder, names: fileNames + [ItemManifest.fileName], renamesLastAfterFolderSync: true,
            beforeFolderSync: { for name in superseded { _ = try unlinkItemFile(name, in: folder) } }, timer: timer
        ) { index in
            guard index < fileNames.count else {
                for name in superseded { manifest.entries[name] = manifest.tombstone(name, now: now) }
                manifestBytes = try timer.time("serialize manifest") {
                    try manifest.serialized(keyringID: keyringID, key: owner.manifest)
                }
                return manifestBytes
            }
            let (file, modified, supersedes) = try item(index)
            manifest.entries[fileNames[index]] = ItemManifest.Entry(
                modified: modified.timeIntervalSince1970, deleted: false)
            if let supersedes { superseded.append(supersedes) }
            return file
        }
        rememberWritten(manifest, bytes: manifestBytes)
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
        let file = try value.withUnsafeBytes {
            try ItemEnvelope.seal(
                record, value: $0, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key)
        }
        // What these attributes hold is known: the next read (or replacement) of the file opens the value only.
        rememberAttributes(record.readBack, of: file, fileName: fileName, key: key)
        return file
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
