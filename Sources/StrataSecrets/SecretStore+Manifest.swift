import Foundation
import StrataCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SecretStore {
    /// The manifest's path, for errors.
    var manifestPath: String { directory + "/" + ItemManifest.fileName }

    /// The current manifest and the data key it is tagged under — the keyring's current key, which writers seal
    /// with — read again only when the file changed. An empty manifest under this store's key when the keyring
    /// has none yet (a keyring made before manifests).
    ///
    /// Readers call this before reading an item file: a writer makes the item durable before it advances the
    /// manifest, so the item a reader then finds is never older than the entry it saw (no false rollback).
    /// - Throws: ``StorageError`` `.rolledBack` when a keyring that requires its manifest has none, `.locked`
    ///   when another process rotated the key since this one unlocked, `.corrupt` for a damaged manifest.
    func currentManifest(in folder: DirectoryHandle) throws -> (manifest: ItemManifest, owner: DataKeys) {
        let (keyringID, current, next, requiresManifest, cached) = keyMaterial.withLock {
            ($0.keyringID, $0.current, $0.next, $0.requiresManifest, $0.manifestCache)
        }
        guard let keyringID, let current else { throw notUnlocked() }
        /// The cached manifest, when tagged under a key at hand (no array of the candidates: every read's path).
        func known(_ manifest: ItemManifest) -> (ItemManifest, DataKeys)? {
            if manifest.keyCheck == current.check { return (manifest, current) }
            if let next, manifest.keyCheck == next.check { return (manifest, next) }
            return nil
        }
        // A settled stamp vouches for the bytes read under it (see FileStamp): one fstatat instead of a read.
        if let cached, let settled = cached.stamp {
            let now: FileStamp?
            do throws(Errno) {
                now = try folder.status(of: ItemManifest.fileName).map(FileStamp.init)
            } catch {
                throw error.storageError("cannot inspect the item manifest", tier: .secrets, path: manifestPath)
            }
            if now == settled, let found = known(cached.manifest) { return found }
        }
        let readStart = Date().timeIntervalSince1970
        guard
            let (data, status) = try AtomicFile.readWithStatus(
                in: folder, name: ItemManifest.fileName, maximumSize: 64 << 20)
        else {
            guard !requiresManifest else {
                throw StorageError(
                    .rolledBack,
                    "the keyring's item manifest is missing: rollback detection cannot vouch for its items",
                    tier: .secrets, path: manifestPath,
                    recovery: "Restore the keyring folder from a backup, whole; or store every item again")
            }
            return (ItemManifest(keyCheck: current.check), current)
        }
        let stamp = FileStamp(status)
        let settled = stamp.isSettled(readStart: readStart) ? stamp : nil
        // The bytes parsed last, read again (a manifest changed within the settling time): not parsed again.
        if let cached, cached.bytes == data, let found = known(cached.manifest) {
            keyMaterial.withLock { $0.manifestCache = (data, settled, found.0) }
            return found
        }
        let parsed: (ItemManifest, DataKeys)
        do {
            parsed = try ItemManifest.parse(
                data, keyringID: keyringID, keys: [current, next].compactMap { $0 }, path: manifestPath)
        } catch let error as StorageError where error.code == .locked {
            // Tagged under a key this process has not seen: the next key of a rotation under way, if any.
            guard let loaded = try nextKeys(in: folder) else { throw error }
            parsed = try ItemManifest.parse(data, keyringID: keyringID, keys: [current, loaded], path: manifestPath)
        }
        keyMaterial.withLock { $0.manifestCache = (data, settled, parsed.0) }
        return parsed
    }

    /// Changes the manifest and replaces it atomically (flushed, renamed, the folder flushed), tagged under `owner`
    /// (by default the key it is tagged under now). The caller holds the keyring's lock exclusively and has made
    /// the item change durable first. Item writes record their items with
    /// ``writeItems(_:in:manifest:owner:now:timer:)`` instead, in the same flush as the items.
    /// - Parameter change: Changes the manifest; it is given the data key the manifest is tagged under now and
    ///   may throw (nothing is written then).
    func advanceManifest(
        in folder: DirectoryHandle, as owner: DataKeys? = nil, _ change: (inout ItemManifest, DataKeys) throws -> Void
    ) throws {
        let (current, currentOwner) = try currentManifest(in: folder)
        let owner = owner ?? currentOwner
        var manifest = current
        manifest.keyCheck = owner.check
        try change(&manifest, currentOwner)
        let bytes = try manifest.serialized(keyringID: try manifestKeyringID(), key: owner.manifest)
        try AtomicFile.write(bytes, in: folder, name: ItemManifest.fileName)
        rememberWritten(manifest, bytes: bytes)
    }

    /// Keeps the manifest just written as the one read last, by its bytes: the next read (of this process) finds
    /// them in the file and takes the manifest from memory instead of parsing it again. Without a stamp — it was
    /// changed just now — so that read does read the file: another process may have replaced it since.
    func rememberWritten(_ manifest: ItemManifest, bytes: Data) {
        keyMaterial.withLock { $0.manifestCache = (bytes, nil, manifest) }
    }

    func manifestKeyringID() throws -> [UInt8] {
        guard let id = keyMaterial.withLock({ $0.keyringID }) else { throw notUnlocked() }
        return id
    }

    /// Refuses an item older than its manifest entry.
    /// - Throws: ``StorageError`` `.rolledBack`, naming the item's file.
    func checkNotRolledBack(
        _ record: ItemEnvelope.Record, fileName: String, in manifest: ItemManifest, path: @autoclosure () -> String
    ) throws {
        guard manifest.isRolledBack(fileName, modified: record.modified) else { return }
        throw StorageError(
            .rolledBack,
            "the item file is older than the keyring's manifest records: an earlier copy was put back, so its value may "
                + "be a revoked one", tier: .secrets, key: Self.displayKey(ItemIdentity(record)), path: path(),
            recovery: "Store the item again with its current value (or delete it); do not trust the value in this file")
    }

}
