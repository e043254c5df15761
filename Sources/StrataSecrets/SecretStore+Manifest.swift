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
        let stamp: SIMD4<Int>?
        do throws(Errno) {
            stamp = try folder.status(of: ItemManifest.fileName).map(Self.stamp)
        } catch {
            throw error.storageError("cannot inspect the item manifest", tier: .secrets, path: manifestPath)
        }
        if let stamp, let cached, cached.stamp == stamp {
            // No array of the candidates: this is every warm read's path.
            if cached.manifest.keyCheck == current.check { return (cached.manifest, current) }
            if let next, cached.manifest.keyCheck == next.check { return (cached.manifest, next) }
        }
        guard let stamp,
            let data = try AtomicFile.read(in: folder, name: ItemManifest.fileName, maximumSize: 64 << 20)
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
        let parsed: (ItemManifest, DataKeys)
        do {
            parsed = try ItemManifest.parse(
                data, keyringID: keyringID, keys: [current, next].compactMap { $0 }, path: manifestPath)
        } catch let error as StorageError where error.code == .locked {
            // Tagged under a key this process has not seen: the next key of a rotation under way, if any.
            guard let loaded = try nextKeys(in: folder) else { throw error }
            parsed = try ItemManifest.parse(data, keyringID: keyringID, keys: [current, loaded], path: manifestPath)
        }
        keyMaterial.withLock { $0.manifestCache = (stamp, parsed.0) }
        return parsed
    }

    /// Changes the manifest and replaces it atomically (flushed, renamed, the folder flushed), tagged under `owner`
    /// (by default the key it is tagged under now). The caller holds the keyring's lock exclusively and has made
    /// the item change durable first. Item writes record their items with
    /// ``replaceItems(_:in:manifest:owner:now:_:)`` instead, in the same flush as the items.
    func advanceManifest(
        in folder: DirectoryHandle, as owner: DataKeys? = nil, _ change: (inout ItemManifest) -> Void
    ) throws {
        let (current, currentOwner) = try currentManifest(in: folder)
        let owner = owner ?? currentOwner
        var manifest = current
        manifest.keyCheck = owner.check
        change(&manifest)
        try AtomicFile.write(
            manifest.serialized(keyringID: try manifestKeyringID(), key: owner.manifest), in: folder,
            name: ItemManifest.fileName)
        rememberWritten(manifest, in: folder)
    }

    /// Keeps the manifest just written as the one read last. The caller holds the keyring's lock exclusively:
    /// the file there now is the one written, so the next read (of this process) takes it from memory instead of
    /// parsing it again.
    func rememberWritten(_ manifest: ItemManifest, in folder: DirectoryHandle) {
        let stamp = try? folder.status(of: ItemManifest.fileName).map(Self.stamp)
        keyMaterial.withLock { $0.manifestCache = stamp.map { ($0, manifest) } }
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

    /// What identifies one version of a file: inode, size and change time (a vector: no allocation).
    static func stamp(_ status: stat) -> SIMD4<Int> {
        #if canImport(Darwin)
            let changed = status.st_ctimespec
        #else
            let changed = status.st_ctim
        #endif
        return SIMD4(Int(status.st_ino), Int(status.st_size), Int(changed.tv_sec), Int(changed.tv_nsec))
    }
}
