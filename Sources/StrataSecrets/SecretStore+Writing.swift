import Foundation
import StrataCore
import StrataSystem

extension SecretStore {
    /// Stores `value` as the item `identity`, replacing `existing` (whose creation date, and label unless a new
    /// one is given, it keeps): the path of ``set(_:service:account:label:accessibility:)``,
    /// ``update(service:account:accessibility:_:)`` and imports. The caller holds the keyring's lock exclusively,
    /// and may pass the manifest it read under it (``currentManifest(in:)``), which is read otherwise.
    ///
    /// The item's modification time is its generation (see ``ItemManifest``): strictly after the manifest's
    /// entry, and recorded there in the same write (see ``writeItems(_:in:manifest:owner:now:)``).
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
        let file = try sealedFile(
            value, as: record, accessibility: accessibility, keyringID: keyringID, key: key, fileName: fileName)
        try writeItems(
            [
                (
                    fileName, file, record.modified, existing.flatMap { $0.fileName != fileName ? $0.fileName : nil },
                    !accessibility.isThisDeviceOnly
                )
            ], in: folder, manifest: manifest, owner: owner, now: now)
    }

    /// Writes sealed items and records their new generations in the manifest, each item inside the manifest when
    /// it fits (see ``SecretsConfiguration/inlineItemLimit`` and ``SecretsConfiguration/inlineTotalLimit``), in a
    /// file of its own otherwise, with two waits for the disk at most, as one file's atomic replace has. The
    /// caller holds the keyring's lock exclusively and read `manifest` under it.
    ///
    /// - Only inline items: the manifest alone is replaced (temporary, `fdatasync`, rename, folder `fsync`).
    /// - Item files: the new files and the new manifest are written beside their targets and flushed together,
    ///   the files renamed into place (and files they supersede removed), the folder flushed, and only then the
    ///   manifest renamed: on disk the manifest is never newer than the item files, so a crash (or a power loss)
    ///   before its rename leaves files newer than their entries, which read. Its content is on disk before its
    ///   rename, so it is never torn. When that rename carries items too (inline ones, or an item that moves from
    ///   the manifest to a file, whose file is ignored until the manifest says so), the folder is flushed once
    ///   more; otherwise the rename becomes durable with the folder's next flush.
    ///
    /// Files of items now inline (the file an item moves out of, or a leftover) are removed after the manifest's
    /// rename: a crash before leaves them, and readers never read a file whose entry is inline.
    /// - Parameters:
    ///   - items: The items, with distinct file names: each one's sealed bytes, generation, the file it supersedes
    ///     (an item under the first format's name), if any, and whether it may live in the manifest.
    ///   - manifest: The manifest the items' generations were computed from (``currentManifest(in:)``).
    ///   - owner: The data key the items are sealed under, which tags the manifest.
    ///   - now: When, for the tombstones of superseded files.
    /// - Throws: A write error (see
    ///   ``/StrataCore/AtomicFile/writeAll(in:names:permissions:renamesLastAfterFolderSync:beforeFolderSync:_:)``).
    func writeItems(
        _ items: [(fileName: String, file: Data, modified: Date, supersedes: String?, inlinable: Bool)],
        in folder: DirectoryHandle, manifest: ItemManifest, owner: DataKeys, now: Date
    ) throws {
        var manifest = manifest
        manifest.keyCheck = owner.check
        manifest.sequence += 1
        var room = configuration.inlineTotalLimit - manifest.inlineBytes
        var files: [(name: String, file: Data)] = []
        var leftovers: [(name: String, hadFile: Bool)] = []
        var superseded: [String] = []
        var carriesItems = false
        for item in items {
            let previous = manifest.inlineItem(item.fileName)?.count ?? 0
            var entry = ItemManifest.Entry(modified: item.modified.timeIntervalSince1970, deleted: false)
            if item.inlinable, item.file.count <= configuration.inlineItemLimit, item.file.count <= room + previous {
                room += previous - item.file.count
                entry.inline = item.file
                leftovers.append((item.fileName, previous == 0))
                carriesItems = true
            } else {
                room += previous
                carriesItems = carriesItems || previous > 0
                files.append((item.fileName, item.file))
            }
            manifest.entries[item.fileName] = entry
            if let supersedes = item.supersedes { superseded.append(supersedes) }
        }
        for name in superseded { manifest.entries[name] = manifest.tombstone(name, now: now) }
        let keyringID = try manifestKeyringID()
        let bytes = try manifest.serialized(keyringID: keyringID, key: owner.manifest)
        if files.isEmpty {
            try AtomicFile.writeAll(in: folder, names: [ItemManifest.fileName]) { _ in bytes }
            leftovers += superseded.map { ($0, true) }
        } else {
            try AtomicFile.writeAll(
                in: folder, names: files.map(\.name) + [ItemManifest.fileName], renamesLastAfterFolderSync: true,
                beforeFolderSync: { for name in superseded { _ = try unlinkItemFile(name, in: folder) } }
            ) { index in index < files.count ? files[index].file : bytes }
            if carriesItems { try folder.sync() }
        }
        rememberWritten(manifest, bytes: bytes)
        // The anchor only once the manifest's rename is durable (see ManifestAnchor). Without a flush after the
        // rename (only item files changed: no value the manifest holds did), the anchor stays one write behind: that
        // manifest put back holds the same items as this one, and its files are at least as new.
        if files.isEmpty || carriesItems { advanceAnchor(to: manifest, in: folder) }
        removeLeftovers(leftovers, in: folder)
    }

    /// Removes the files of items that live in the manifest, where there are any (the file an item moved out of,
    /// or a crash's leftover), without waiting for their freeing (see ``/StrataCore/RetiredFiles``). Best effort:
    /// a file left behind is never read, and the next write of its item removes it.
    /// - Parameter names: The files, each with whether one is expected there (the item lived in a file until
    ///   now): only those are held open across their unlink, so that the background close frees them.
    func removeLeftovers(_ names: [(name: String, hadFile: Bool)], in folder: DirectoryHandle) {
        var held: [FileDescriptor] = []
        defer { RetiredFiles.release(held) }
        for (name, hadFile) in names {
            let old = hadFile && held.count < AtomicFile.oneByOneFlushLimit ? RetiredFiles.hold(name, in: folder) : nil
            _ = try? unlinkItemFile(name, in: folder)
            if let old { held.append(old) }
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

    /// The one sealing path, which every write of an item takes (so limits and errors cannot drift between
    /// callers): checks the value against ``SecretsConfiguration/valueLimit`` and seals the attributes and the
    /// value under `key`, bound to the item's file name, into the bytes of an item file (or of an inline entry of
    /// the manifest, the same bytes). A re-sealing under a new key goes through it with the record it read.
    /// - Throws: ``StorageError`` `.tooLarge`, naming the item.
    func sealedFile(
        _ value: Secret, as record: ItemEnvelope.Record, accessibility: SecretAccessibility, keyringID: [UInt8],
        key: GuardedKey, fileName: String
    ) throws -> Data {
        try configuration.checkValueSize(value.count, of: ItemIdentity(record))
        let file = try value.withUnsafeBytes {
            try ItemEnvelope.seal(
                record, value: $0, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key)
        }
        // What these attributes hold is known: the next read (or replacement) of the file opens the value only.
        rememberAttributes(record.readBack, of: file, fileName: fileName, key: key)
        return file
    }
}
