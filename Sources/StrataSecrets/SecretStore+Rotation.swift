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
    var rotationPath: String { directory + "/" + RotationFile.fileName }

    /// Replaces the keyring's data key with a new random one and re-seals every item under it, then wraps the new
    /// key under `provider` (a passphrase gets a new salt). Unlike ``changeKey(to:)``, which rewraps the same data
    /// key, an old copy of `keyring.json` with the old passphrase or key opens nothing written after a rotation.
    ///
    /// Crash-safe: the new key is first recorded, sealed under the old one, in `rotation.key`; items are then
    /// re-sealed one by one (each replaced atomically), the manifest is tagged under the new key, `keyring.json`
    /// is replaced, and `rotation.key` removed. A crash anywhere leaves every item under exactly one of the two
    /// keys, both reachable from `keyring.json`; the next ``unlock(with:createIfMissing:)`` (or rotation) finishes
    /// the job. The keyring's lock is held exclusively throughout: writers in other processes wait (up to
    /// ``SecretsConfiguration/lockTimeout``); readers do not, and read an item sealed under either key.
    /// - Parameter provider: The keyring's passphrase or key (checked against `keyring.json`); the new data key is
    ///   wrapped under it.
    /// - Returns: How many items were re-sealed, and the files that opened under neither key (left as they were).
    /// - Throws: ``/StrataCore/StorageError``: `.locked` when the store is locked or another process rotated the key
    ///   since it was unlocked, `.authenticationFailed` for a wrong provider, `.deviceMismatch` when the keyring holds
    ///   a `...ThisDeviceOnly` item of another machine (it could not be re-sealed here; nothing is changed), or a write
    ///   error (the rotation then finishes on the next unlock or rotation).
    @discardableResult
    public func rotate(with provider: KeyProvider) throws -> SecretRotation {
        guard let current = keyMaterial.withLock({ $0.current }) else { throw notUnlocked("rotating the key") }
        guard !current.isLocked else {
            throw StorageError(
                .locked, "rotating the key needs the store unlocked", tier: .secrets, path: keyringPath,
                recovery: "Call unlock(with:) first")
        }
        guard let file = try readKeyring() else {
            throw StorageError(.notFound, "the keyring file disappeared", tier: .secrets, path: keyringPath)
        }
        // The provider must open the keyring as it is: whoever rotates could also change the passphrase.
        let opened = try unwrap(file, with: provider)
        opened.names.wipe()
        defer { opened.data.wipe() }
        guard try opened.data.check() == current.check else { throw rotatedElsewhere() }
        let kdf = provider.isPassphrase ? configuration.newKDFParameters() : nil
        let wrapping = try provider.wrappingKey(kdf: kdf)
        defer { wrapping.wipe() }
        let folder = try keyringFolder()
        return try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
            guard try readKeyring() == file else { throw rotatedElsewhere() }
            return try runRotation(in: folder, from: current, provider: provider.kind, kdf: kdf, wrapping: wrapping)
        }
    }

    /// Finishes a rotation a crash (or a failed write) interrupted, at unlock: re-seals what is left and switches
    /// `keyring.json` (wrapped as it was: same provider and Argon2id parameters), or only removes `rotation.key` when
    /// the switch was done. When the lock stays taken (a rotation running in another process), leaves it to that
    /// process; when the keyring cannot be written (a full disk), leaves it to a later unlock: reads follow the new
    /// key through `rotation.key` meanwhile, so the unlock succeeds either way.
    /// - Returns: Whether `keyring.json` changed since `file` was read (another process finished a rotation):
    ///   the caller unlocks again, to hold the keyring's new key.
    func finishInterruptedRotation(with provider: KeyProvider, keyring file: KeyringFile) throws -> Bool {
        guard let folder = try existingKeyringFolder(), try readRotationFile(in: folder) != nil,
            let current = keyMaterial.withLock({ $0.current })
        else { return false }
        let wrapping = try provider.wrappingKey(kdf: file.kdf)
        defer { wrapping.wipe() }
        do {
            return try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
                guard try readKeyring() == file else { return true }  // Another process moved on meanwhile.
                guard let rotation = try readRotationFile(in: folder) else { return false }
                guard rotation.nextCheck != current.check else {
                    try removeRotationFile(in: folder)
                    return false
                }
                _ = try runRotation(
                    in: folder, from: current, provider: file.provider, kdf: file.kdf, wrapping: wrapping)
                return false
            }
        } catch let error as StorageError where Self.leavesRotationForLater.contains(error.code) {
            // The lock stays taken (a rotation running elsewhere), or the keyring cannot be written now (a full
            // disk, a failing one, a keyring this user may only read): reads need no write, and follow both keys
            // through `rotation.key` meanwhile; the next unlock or rotation that can write finishes the job.
            return false
        }
    }

    /// What stops an unlock from finishing an interrupted rotation without failing the unlock.
    static let leavesRotationForLater: Set<StorageError.Code> = [
        .lockTimeout, .lockUnavailable, .noSpace, .io, .permissionDenied,
    ]

    /// The rotation itself, under the keyring's exclusive lock; resumes the one `rotation.key` records, if any.
    private func runRotation(
        in folder: DirectoryHandle, from current: DataKeys, provider: String, kdf: KDFParameters?,
        wrapping: GuardedKey
    ) throws -> SecretRotation {
        let keyringID = try manifestKeyringID()
        guard let names = keyMaterial.withLock({ $0.names }) else { throw notUnlocked() }
        let next: DataKeys
        if let rotation = try readRotationFile(in: folder) {
            next = try DataKeys(rotation.open(keyringID: keyringID, with: current, path: rotationPath))
        } else {
            try refuseOtherMachinesItems(in: folder)
            next = try DataKeys(GuardedKey.random())
            let record = try RotationFile.sealing(next, keyringID: keyringID, under: current)
            try AtomicFile.write(record.serialized(keyringID: keyringID), in: folder, name: RotationFile.fileName)
        }
        keyMaterial.withLock { $0.next = next }
        var resealed = 0
        var unreadable: [String] = []
        // Item files first, one by one; then the items the manifest holds, all at once in the manifest that is
        // tagged under the new key (until then they are under the key the manifest is tagged under).
        let inline = try currentManifest(in: folder).manifest
        for name in try itemFileNames(in: folder) where inline.inlineItem(name) == nil {
            switch try reseal(name, in: folder, keyringID: keyringID, from: current, to: next) {
            case true: resealed += 1
            case false: break
            case nil: unreadable.append(folder.path(of: name))
            }
        }
        try advanceManifest(in: folder, as: next) { manifest, owner in
            for (name, entry) in manifest.entries {
                guard let sealed = entry.inline else { continue }
                guard let file = try resealedItem(sealed, name: name, keyringID: keyringID, from: owner, to: next)
                else {
                    unreadable.append(manifestPath + " (" + name + ")")
                    continue
                }
                if file != sealed { resealed += 1 }
                manifest.entries[name]?.inline = file
            }
        }
        let file = try KeyringFile.wrapping(
            next.data, names: names, name: keyring, id: keyringID, provider: provider, kdf: kdf, with: wrapping)
        try AtomicFile.write(file.serialized, in: folder, name: "keyring.json")
        keyMaterial.withLock { keys in
            keys.current = next
            keys.next = nil
            keys.manifestCache = nil
            // Remembered attributes hold the old class keys: let them go, so the old keys are wiped now.
            keys.openedItems = [:]
            keys.requiresManifest = true
            keys.providerKind = provider
            keys.keyringFile = file
        }
        try removeRotationFile(in: folder)
        return SecretRotation(resealed: resealed, unreadable: unreadable)
    }

    /// Re-seals one item file under `next` through the one sealing path, keeping its record (so its generation).
    /// - Returns: `true` when re-sealed, `false` when it already was, `nil` when it opens under neither key.
    private func reseal(
        _ name: String, in folder: DirectoryHandle, keyringID: [UInt8], from current: DataKeys, to next: DataKeys
    ) throws -> Bool? {
        guard
            let file = try AtomicFile.read(
                in: folder, name: name, maximumSize: configuration.valueLimit + (64 << 10), followGrowth: false)
        else { return false }
        guard let sealed = try resealedItem(file, name: name, keyringID: keyringID, from: current, to: next) else {
            return nil
        }
        if sealed == file { return false }
        try AtomicFile.write(sealed, in: folder, name: name)
        return true
    }

    /// The sealed item `file` (of the item file `name`, or the manifest's entry of that name) sealed under `next`
    /// through the one sealing path, keeping its record (so its generation): `file` itself when it opens under
    /// `next` already, `nil` when it opens under neither key.
    /// - Throws: What sealing throws (``SecretsConfiguration/valueLimit`` lowered since the item was stored).
    private func resealedItem(_ file: Data, name: String, keyringID: [UInt8], from current: DataKeys, to next: DataKeys)
        throws -> Data?
    {
        let path = directory + "/" + name
        guard let (accessibility, version) = try? ItemEnvelope.header(of: file, path: path) else { return nil }
        func open(_ keys: DataKeys, value: Bool) -> (ItemEnvelope.Record, Secret?)? {
            try? ItemEnvelope.open(
                file, accessibility: accessibility, version: version, keyringID: keyringID, fileName: name,
                key: keys.classKey(accessibility), path: path, value: value)
        }
        if open(next, value: false) != nil { return file }
        guard let (record, secret) = open(current, value: true), let secret else { return nil }
        return try sealedFile(
            secret, as: record, accessibility: accessibility, keyringID: keyringID,
            key: next.classKey(accessibility), fileName: name)
    }

    /// Refuses to start a rotation over a `...ThisDeviceOnly` item of another machine: it cannot be re-sealed
    /// here, and the key that opens it there would be gone.
    private func refuseOtherMachinesItems(in folder: DirectoryHandle) throws {
        let inline = try currentManifest(in: folder).manifest
        for name in try itemFileNames(in: folder) where inline.inlineItem(name) == nil {
            guard
                let file = try AtomicFile.read(
                    in: folder, name: name, maximumSize: configuration.valueLimit + (64 << 10), followGrowth: false),
                let (accessibility, _) = try? ItemEnvelope.header(of: file, path: folder.path(of: name)),
                accessibility.isThisDeviceOnly
            else { continue }
            do {
                _ = try readItem(in: folder, fileName: name, value: true)
            } catch let error as StorageError where error.code == .deviceMismatch {
                var refused = error
                refused.message =
                    "the keyring holds a ThisDeviceOnly item of another machine, which cannot be re-sealed here"
                refused.recovery =
                    "Rotate on that machine, or delete the item (deleteAll(service:) deletes them); nothing was changed"
                throw refused
            } catch let error as StorageError where [.corrupt, .rolledBack].contains(error.code) {
                continue  // Left as it is, and reported.
            }
        }
    }

    /// The item files of the keyring, sorted.
    func itemFileNames(in folder: DirectoryHandle) throws -> [String] {
        do throws(Errno) {
            return try folder.entries().filter { $0.hasSuffix(Self.itemSuffix) }.sorted()
        } catch {
            throw error.storageError("cannot list the keyring folder", tier: .secrets, path: directory)
        }
    }

    /// The keys of a rotation under way that this process does not hold as its current ones, loaded from
    /// `rotation.key` when needed; `nil` when there is none.
    func nextKeys(in folder: DirectoryHandle) throws -> DataKeys? {
        let (current, loaded) = keyMaterial.withLock { ($0.current, $0.next) }
        if let loaded { return loaded }
        guard let current, let keyringID = keyMaterial.withLock({ $0.keyringID }),
            let rotation = try readRotationFile(in: folder), rotation.nextCheck != current.check
        else { return nil }
        let next: DataKeys
        do {
            next = try DataKeys(rotation.open(keyringID: keyringID, with: current, path: rotationPath))
        } catch let error as StorageError where error.code == .corrupt {
            // Sealed under a key this process does not hold: a later rotation's record, when `keyring.json` moved
            // on since this process unlocked (it then holds a key two rotations old), else an edited one.
            throw try keyringMovedOn() ? rotatedElsewhere() : error
        }
        if current.isLocked { next.lock() }
        keyMaterial.withLock { $0.next = next }
        return next
    }

    func readRotationFile(in folder: DirectoryHandle) throws -> RotationFile? {
        guard let data = try AtomicFile.read(in: folder, name: RotationFile.fileName, maximumSize: 4096) else {
            return nil
        }
        return try RotationFile.parse(data, keyringID: manifestKeyringID(), path: rotationPath)
    }

    private func removeRotationFile(in folder: DirectoryHandle) throws {
        do throws(Errno) {
            try folder.unlink(RotationFile.fileName)
        } catch  where error.code == ENOENT {
            return
        } catch {
            throw error.storageError("cannot remove the rotation record", tier: .secrets, path: rotationPath)
        }
        try folder.sync()
    }

    /// Whether `keyring.json` is no longer the one this process unlocked with (or wrote): another process rotated
    /// the key, or changed what wraps it, since.
    func keyringMovedOn() throws -> Bool {
        let known = keyMaterial.withLock { $0.keyringFile }
        return try known == nil || readKeyring() != known
    }

    func rotatedElsewhere() -> StorageError {
        StorageError(
            .locked, "the keyring's data key was rotated by another process since this one unlocked it",
            tier: .secrets, path: keyringPath, recovery: "Unlock the keyring again")
    }

    /// The error for a keyring this process has not unlocked: why unlocking it failed (``lockedReason``) when its
    /// opener tried, else a `.locked` saying what needs the key.
    func notUnlocked(_ needing: String? = nil) -> StorageError {
        if let reason = lockedReason.withLock({ $0 }) { return reason }
        return StorageError(
            .locked,
            needing.map { "\($0) needs the store unlocked" } ?? "the keyring has not been unlocked in this process",
            tier: .secrets, path: directory, recovery: "Call unlock(with:) first")
    }
}
