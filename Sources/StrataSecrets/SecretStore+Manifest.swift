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

    /// The keyring's id and the keys a manifest may be tagged with (the data key's, and during a rotation the
    /// other key's).
    func manifestKeys() throws -> (keyringID: [UInt8], keys: [GuardedKey]) {
        let (id, keys) = keyMaterial.withLock { ($0.keyringID, [$0.manifest, $0.rotationManifest].compactMap { $0 }) }
        guard let id, !keys.isEmpty else {
            throw StorageError(
                .locked, "the keyring has not been unlocked in this process", tier: .secrets, path: directory,
                recovery: "Call unlock(with:) first")
        }
        return (id, keys)
    }

    /// The current manifest (empty when the keyring has none yet), read again only when the file changed.
    ///
    /// Readers call this before reading an item file: a writer makes the item durable before it advances the
    /// manifest, so the item a reader then finds is never older than the entry it saw (no false rollback).
    func currentManifest(in folder: DirectoryHandle) throws -> ItemManifest {
        let stamp: [Int]
        do throws(Errno) {
            guard let status = try folder.status(of: ItemManifest.fileName) else { return ItemManifest() }
            stamp = Self.stamp(status)
        } catch {
            throw error.storageError("cannot inspect the item manifest", tier: .secrets, path: manifestPath)
        }
        if let cached = keyMaterial.withLock({ $0.manifestCache }), cached.stamp == stamp { return cached.manifest }
        let (keyringID, keys) = try manifestKeys()
        guard let data = try AtomicFile.read(in: folder, name: ItemManifest.fileName, maximumSize: 64 << 20) else {
            return ItemManifest()
        }
        let manifest = try ItemManifest.parse(data, keyringID: keyringID, keys: keys, path: manifestPath)
        keyMaterial.withLock { $0.manifestCache = (stamp, manifest) }
        return manifest
    }

    /// Changes the manifest and replaces it atomically, tagged under the current data key's manifest key. The
    /// caller holds the keyring's lock exclusively and has made the item change durable first.
    func advanceManifest(in folder: DirectoryHandle, _ change: (inout ItemManifest) -> Void) throws {
        var manifest = try currentManifest(in: folder)
        change(&manifest)
        let (keyringID, key) = try keyMaterial.withLock { keys throws -> ([UInt8], GuardedKey) in
            guard let id = keys.keyringID, let key = keys.manifest else {
                throw StorageError(
                    .locked, "the keyring has not been unlocked in this process", tier: .secrets, path: directory,
                    recovery: "Call unlock(with:) first")
            }
            return (id, key)
        }
        try AtomicFile.write(
            manifest.serialized(keyringID: keyringID, key: key), in: folder, name: ItemManifest.fileName)
        keyMaterial.withLock { $0.manifestCache = nil }
    }

    /// Refuses an item older than its manifest entry.
    /// - Throws: ``StorageError`` `.rolledBack`, naming the item's file.
    func checkNotRolledBack(
        _ record: ItemEnvelope.Record, fileName: String, in manifest: ItemManifest, path: String
    ) throws {
        guard manifest.isRolledBack(fileName, modified: record.modified) else { return }
        throw StorageError(
            .rolledBack,
            "the item file is older than the keyring's manifest records: an earlier copy was put back, so its value may "
                + "be a revoked one", tier: .secrets, key: Self.displayKey(ItemIdentity(record)), path: path,
            recovery: "Store the item again with its current value (or delete it); do not trust the value in this file")
    }

    /// What identifies one version of a file: inode, size and change time.
    static func stamp(_ status: stat) -> [Int] {
        #if canImport(Darwin)
            let changed = status.st_ctimespec
        #else
            let changed = status.st_ctim
        #endif
        return [Int(status.st_ino), Int(status.st_size), Int(changed.tv_sec), Int(changed.tv_nsec)]
    }
}
