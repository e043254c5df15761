import Foundation
import StrataCore
import StrataSystem
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
        // A settled stamp vouches for the bytes read under it (see FileStamp): one fstatat instead of a read. Only
        // in the folder it was read in (the pin's, which every read makes): a folder swapped in at the keyring's
        // path may hold that very file (a copy made by hard links) next to a newer anchor.
        if let cached, let settled = cached.stamp, cached.pin?.folder === folder {
            let now: FileStamp?
            do throws(Errno) {
                now = try folder.status(of: ItemManifest.fileName).map(FileStamp.init)
            } catch {
                throw error.storageError("cannot inspect the item manifest", tier: .secrets, path: manifestPath)
            }
            if now == settled, let found = known(cached.manifest) { return found }
        }
        // Not settled yet (it changed within the settling time, as after every set): the file held open since it
        // was read, when the name in that folder still holds it with the same bytes, vouches as well — one fstatat
        // and one pread.
        if let cached, cached.stamp == nil, let pin = cached.pin,
            pin.stillHolds(cached.bytes, as: ItemManifest.fileName, in: folder), let found = known(cached.manifest)
        {
            return found
        }
        let readStart = Date().timeIntervalSince1970
        // The anchor before the manifest (see ManifestAnchor): a manifest read after it is at least as new. A
        // manifest served from memory above (settled, or held open) is the very file checked when it was read.
        let anchor = try readAnchor(in: folder, keyringID: keyringID)
        guard
            let (data, status, pin) = try PinnedFile.read(
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
            try checkNotRolledBack(found.0, anchor: anchor)
            keyMaterial.withLock { $0.manifestCache = (data, settled, pin, found.0) }
            return found
        }
        let parsed: (ItemManifest, DataKeys)
        do {
            parsed = try ItemManifest.parse(
                data, keyringID: keyringID, keys: [current, next].compactMap { $0 }, path: manifestPath)
        } catch let error as StorageError where error.code == .locked {
            // Tagged under a key this process has not seen: the next key of a rotation under way, if any; else the
            // key moved on (another process rotated it), or keyring.json is an old copy.
            guard let loaded = try nextKeys(in: folder) else {
                throw try unknownManifestKey(data, current: current, anchor: anchor)
            }
            do {
                parsed = try ItemManifest.parse(
                    data, keyringID: keyringID, keys: [current, loaded], path: manifestPath)
            } catch let error as StorageError where error.code == .locked {
                throw try unknownManifestKey(data, current: current, anchor: anchor)
            }
        }
        try checkNotRolledBack(parsed.0, anchor: anchor)
        keyMaterial.withLock { $0.manifestCache = (data, settled, pin, parsed.0) }
        return parsed
    }

    /// The anchor's sequence number (see ``ManifestAnchor``), or 0 when there is none of this keyring's.
    func readAnchor(in folder: DirectoryHandle, keyringID: [UInt8]) throws -> UInt64 {
        guard let data = try AtomicFile.read(in: folder, name: ManifestAnchor.fileName, maximumSize: 4096) else {
            return 0
        }
        return ManifestAnchor.parse(data, keyringID: keyringID)?.sequence ?? 0
    }

    /// Refuses a manifest older than the anchor read before it: an earlier copy of `items.manifest` put back.
    /// - Throws: ``StorageError`` `.rolledBack`, naming the manifest.
    func checkNotRolledBack(_ manifest: ItemManifest, anchor: UInt64) throws {
        guard manifest.sequence < anchor else { return }
        throw StorageError(
            .rolledBack,
            "the item manifest is older than the keyring recorded (write \(manifest.sequence), and \(anchor) was made "
                + "durable): an earlier copy was put back, so the items it holds may have revoked values",
            tier: .secrets, path: manifestPath,
            recovery: "Put the current \(ItemManifest.fileName) back, or restore the keyring folder whole from one "
                + "backup; to accept this copy and the values it holds, remove \(ManifestAnchor.fileName)")
    }

    /// Records `manifest`, just made durable, in the anchor. The caller holds the keyring's lock exclusively.
    ///
    /// Replaced without a flush of its own (see ``ManifestAnchor``), and best effort: an anchor that could not be
    /// written lags, which weakens the detection of a rollback until the next write, and refuses nothing.
    func advanceAnchor(to manifest: ItemManifest, in folder: DirectoryHandle) {
        guard let keyringID = try? manifestKeyringID() else { return }
        try? AtomicFile.write(
            ManifestAnchor(sequence: manifest.sequence).serialized(keyringID: keyringID), in: folder,
            name: ManifestAnchor.fileName, durability: .atomicOnly)
    }

    /// The error for a manifest tagged under a data key this process does not hold, when no rotation under way
    /// gives it:
    /// - `locked` when `keyring.json` moved on since this process unlocked (another process rotated the key:
    ///   unlocking again gives the new one);
    /// - `rolled-back` naming `keyring.json` when it is still the file this process unlocked with and the manifest
    ///   says it was rotated away from this very key: `keyring.json` is a copy from before the rotation;
    /// - `rolled-back` naming the manifest when its sequence number is below the anchor's: an older manifest put
    ///   back, from before a rotation (see ``checkNotRolledBack(_:anchor:)``);
    /// - `corrupt` naming the manifest otherwise: it names a key nothing here gives (its header was damaged).
    func unknownManifestKey(_ data: Data, current: DataKeys, anchor: UInt64) throws -> StorageError {
        guard try !keyringMovedOn() else { return rotatedElsewhere() }
        let header = ItemManifest.unauthenticatedHeader(data, keyringIDSize: try manifestKeyringID().count)
        if let header {
            var claimed = ItemManifest(keyCheck: header.keyCheck)
            claimed.sequence = header.sequence
            do { try checkNotRolledBack(claimed, anchor: anchor) } catch let error as StorageError { return error }
        }
        guard let previous = header?.previousKeyCheck, previous == current.check else {
            return StorageError(
                .corrupt,
                "the item manifest names a data key that neither keyring.json nor a rotation under way gives: it "
                    + "was damaged, or comes from a keyring folder of another time", tier: .secrets,
                path: manifestPath, recovery: "Restore the keyring folder whole from one backup")
        }
        return StorageError(
            .rolledBack,
            "keyring.json is older than the keyring's item manifest: it wraps the data key the keyring was rotated "
                + "away from, so an earlier copy of keyring.json was put back after a rotation", tier: .secrets,
            path: keyringPath,
            recovery: "Put the current keyring.json back (or restore the keyring folder whole from one backup); the "
                + "old one opens nothing written since the rotation")
    }

    /// Changes the manifest and replaces it atomically (flushed, renamed, the folder flushed), tagged under `owner`
    /// (by default the key it is tagged under now). The caller holds the keyring's lock exclusively and has made
    /// the item change durable first. Item writes record their items with
    /// ``writeItems(_:in:manifest:owner:now:)`` instead, in the same flush as the items.
    /// - Parameter change: Changes the manifest; it is given the data key the manifest is tagged under now and
    ///   may throw (nothing is written then).
    func advanceManifest(
        in folder: DirectoryHandle, as owner: DataKeys? = nil, _ change: (inout ItemManifest, DataKeys) throws -> Void
    ) throws {
        let (current, currentOwner) = try currentManifest(in: folder)
        let owner = owner ?? currentOwner
        var manifest = current
        manifest.keyCheck = owner.check
        manifest.sequence = current.sequence + 1
        // A rotation's switch to the next key records the key it leaves (see
        // ``unknownManifestKey(_:current:anchor:)``).
        if owner.check != currentOwner.check { manifest.previousKeyCheck = currentOwner.check }
        try change(&manifest, currentOwner)
        let bytes = try manifest.serialized(keyringID: try manifestKeyringID(), key: owner.manifest)
        try AtomicFile.write(bytes, in: folder, name: ItemManifest.fileName)
        rememberWritten(manifest, bytes: bytes)
        advanceAnchor(to: manifest, in: folder)
    }

    /// Keeps the manifest just written as the one read last, by its bytes: the next read (of this process) finds
    /// them in the file and takes the manifest from memory instead of parsing it again. Without a stamp — it was
    /// changed just now — so that read does read the file: another process may have replaced it since.
    func rememberWritten(_ manifest: ItemManifest, bytes: Data) {
        keyMaterial.withLock { $0.manifestCache = (bytes, nil, nil, manifest) }
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
                + "be a revoked one", tier: .secrets, key: ItemIdentity(record).displayKey, path: path(),
            recovery: "Store the item again with its current value (or delete it); do not trust the value in this file")
    }

}
