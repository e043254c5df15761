import Foundation
import StrataBackup
import StrataCatalog

// Every way back from a capture (see `Documentation/Backup.md`, "Capture and restore"): a whole store into a new
// root, from a backup repository's snapshot or any capture source, all-or-nothing; or chosen keys into this store.
// Each first writes the whole capture into a staging folder and opens and verifies it there (`StagedRestore`).
extension Storage {
    /// Restores a snapshot of `repository` into a new root, all-or-nothing (see
    /// ``restore(from:to:secretsKey:records:)``).
    ///
    /// ```swift
    /// try Storage.restore(snapshot: "3f9a", from: repository, to: "/var/lib/notes-restored",
    ///                     secretsKey: .passphrase("correct horse"))
    /// ```
    /// - Parameters:
    ///   - snapshot: The snapshot's id or a unique prefix of it.
    ///   - repository: The repository.
    ///   - root: The new root: it must not exist, or be an empty folder.
    ///   - secretsKey: What unlocks the restored keyring to read its keys back. The default (`nil`) reads
    ///     `STRATA_SECRETS_KEY`.
    ///   - records: Where the records of a store that kept them on PostgreSQL go. The default is
    ///     ``RestoreRecordsTarget/sqlite``: the restored root's own SQLite store.
    /// - Returns: What was written and checked.
    /// - Throws: ``/StrataCore/StorageError``: `.notFound` for an unknown snapshot, the repository's errors for damage,
    ///   and the restore's.
    @discardableResult
    public static func restore(
        snapshot: String, from repository: BackupRepository, to root: String, secretsKey: KeyProvider? = nil,
        records: RestoreRecordsTarget = .sqlite
    ) throws -> RestoreReport {
        let reader = try repository.snapshot(snapshot)
        defer { reader.close() }
        return try restore(from: reader, to: root, secretsKey: secretsKey, records: records)
    }

    /// Restores a capture of a whole store into a new root, all-or-nothing.
    ///
    /// The store is built in a staging folder beside `root` (`.strata-restore-…`): every file written with the
    /// store's mode (0600: the modes a capture records are not applied), its extended attributes and modification
    /// time and made durable, each file checked against its recorded
    /// checksum as it is written; the suite files checked to decode, the staged store opened, its catalog verified
    /// and every catalogued key read back (a checked file is opened, not read again); only then moved to `root` with
    /// one rename(2). A damaged suite, or a secrets tier that cannot be listed with the key given (a tampered item, a
    /// wrong key), fails the restore; without a key, secrets are reported in ``RestoreReport/uncheckedKeys``. A
    /// restore that fails or is killed leaves no store at `root`; its staging folder is removed by the next restore
    /// beside it.
    ///
    /// Secrets are restored sealed: reading them, here or on another machine, needs the key provider the store used
    /// (the same passphrase, key file or key).
    ///
    /// A capture of a store whose records tier was on PostgreSQL holds the records as an export: `records` says where
    /// they go (see ``RestoreRecordsTarget``). Into PostgreSQL, they are loaded in one transaction that commits only
    /// once the staged store is verified, just before the move; a restore that fails or is killed leaves no rows.
    ///
    /// ```swift
    /// let report = try Storage.restore(from: snapshot, to: "/var/lib/myapp-restored",
    ///                                  secretsKey: .passphrase("correct horse"))
    /// ```
    /// - Parameters:
    ///   - source: The capture.
    ///   - root: The new root: it must not exist, or be an empty folder.
    ///   - secretsKey: What unlocks the restored keyring, to read its keys back. The default (`nil`) reads
    ///     `STRATA_SECRETS_KEY`; without either, catalogued secrets are checked for presence only.
    ///   - records: Where the records of a PostgreSQL export go. The default is ``RestoreRecordsTarget/sqlite``: the
    ///     restored root's own SQLite store.
    /// - Returns: What was written and checked, and what the capture had left out.
    /// - Throws: ``/StrataCore/StorageError``: `.conflict` when `root` exists and is not an empty folder or the
    ///   target schema is not empty (naming it), `.invalidArgument` for a PostgreSQL target and a capture whose
    ///   records are not an export, `.corrupt`
    ///   naming the file for hostile or damaged capture content (a path outside its tier, `..`, a size that does not
    ///   match) or a restored store that does not verify, the source's errors, or an I/O error.
    @discardableResult
    public static func restore(
        from source: some CaptureSource, to root: String, secretsKey: KeyProvider? = nil,
        records: RestoreRecordsTarget = .sqlite
    ) throws -> RestoreReport {
        let target = try RestoreTarget(root)
        try target.checkVacant()
        let staged = try StagedRestore(source, besides: target, secretsKey: secretsKey, records: records)
        try staged.moveIntoPlace()
        return staged.report
    }

    /// Restores the keys of a capture that start with `prefix` into this store, each into the tier the capture's
    /// catalog places it in (a key written through a tier's own API, which the catalog does not record, into the
    /// tier that holds it; moving it there when this store keeps it elsewhere), replacing what this store holds
    /// under the same key. Keys of this store that the capture does not hold are left alone.
    ///
    /// The whole capture is first restored into a private staging folder beside this store's root and verified
    /// (as ``restore(from:to:secretsKey:records:)`` does; a PostgreSQL export goes into the staged SQLite store); the
    /// keys are then copied through the tiers' APIs, each under its catalog lock and moved as a put moves a value
    /// between tiers, and the staging folder is removed.
    /// - Parameters:
    ///   - prefix: The keys to restore (`""` for all; a full key for one).
    ///   - source: The capture.
    ///   - secretsKey: What unlocks the captured keyring. The default (`nil`) reads `STRATA_SECRETS_KEY`.
    /// - Returns: The keys restored, sorted.
    /// - Throws: ``/StrataCore/StorageError`` as ``restore(from:to:secretsKey:records:)``, `.locked` for a captured secret
    ///   with no key to read it, `.conflict` for a key whose uncatalogued copies are in several tiers, or a tier's
    ///   error.
    @discardableResult
    public func restore(keysWithPrefix prefix: String, from source: some CaptureSource, secretsKey: KeyProvider? = nil)
        throws -> [String]
    {
        try restoreKeys(from: source, secretsKey: secretsKey) { captured in
            try captured.keys(prefix: prefix).compactMap { try captured.restorableLocation(of: $0) }
        }
    }

    /// Restores exactly one key of a capture into this store, as ``restore(keysWithPrefix:from:secretsKey:)`` does
    /// for a prefix: only that key (restoring `a` leaves `ab` alone), matched by its exact Unicode scalars, as the
    /// catalog keeps it.
    ///
    /// ```swift
    /// try storage.restore(key: "settings/theme", from: try repository.snapshot("3f9a"))
    /// ```
    /// - Parameters:
    ///   - key: The key.
    ///   - source: The capture.
    ///   - secretsKey: What unlocks the captured keyring. The default (`nil`) reads `STRATA_SECRETS_KEY`.
    /// - Throws: ``/StrataCore/StorageError``: `.notFound` naming the key when the capture holds no value under it
    ///   (nothing in this store is changed), `.conflict` when several of its tiers hold uncatalogued copies,
    ///   `.locked` for a captured secret with no key to read it, the restore's errors (as
    ///   ``restore(from:to:secretsKey:records:)``), or a tier's error.
    public func restore(key: String, from source: some CaptureSource, secretsKey: KeyProvider? = nil) throws {
        let restored = try restoreKeys(from: source, secretsKey: secretsKey) { captured in
            try captured.restorableLocation(of: key).map { [$0] } ?? []
        }
        guard !restored.isEmpty else {
            throw StorageError(
                .notFound, "the capture holds no value under this key", key: key,
                recovery: "Check the key's exact spelling, or restore the keys with a prefix (--prefix)")
        }
    }

    /// Stages the whole capture (records into SQLite) beside this store's root, then writes the values at the
    /// locations `choose` picks from the staged store into this one (those that read back).
    /// - Returns: The keys restored, in the order chosen.
    private func restoreKeys(
        from source: some CaptureSource, secretsKey: KeyProvider?, choose: (Storage) throws -> [StorageLocation]
    ) throws -> [String] {
        let staged = try StagedRestore(source, besides: RestoreTarget(paths.root), secretsKey: secretsKey)
        let captured = try Storage(root: staged.staging.path, secretsKey: secretsKey, recordsURL: "", filesURL: "")
        let chosen = try choose(captured)
        // Every key's tier must have a backend here (a custom registry may lack one) before any key is written:
        // a restore that stopped halfway would leave some keys restored and say which of them in no way.
        for location in chosen { _ = try opened(location.tier, key: location.key) }
        var restored: [String] = []
        for location in chosen {
            guard let value = try captured.data(for: location.key) else { continue }
            try place(value, at: location)
            restored.append(location.key)
        }
        return restored
    }

    /// Where this (staged) store keeps `key`: the catalog's location or, for a key the catalog does not record
    /// (written through a tier's own API), the one tier that holds it, found as ``location(of:)`` finds it. A
    /// string that is no key is held nowhere.
    func restorableLocation(of key: String) throws -> StorageLocation? {
        if let location = try catalog.location(of: key) { return location }
        do {
            try StoragePaths.validateKey(key)
        } catch {
            return nil
        }
        return try location(of: key)
    }

    /// Writes a restored `value` where `location` (the staged store's) says, under the key's lock, by the move
    /// protocol: a copy in another tier is removed once the new one is recorded. The capture decides the tier, so a
    /// credential may leave the secrets tier; the value is durable when this returns.
    /// - Parameter keep: Decides, under the key's lock, from what this store holds under the key then (its location
    ///   and value, or `nil`), whether to leave it as it is instead (`true`: nothing is written).
    /// - Returns: Whether `value` was written.
    @discardableResult
    func place(
        _ value: Data, at location: StorageLocation,
        unless keep: (_ current: (location: StorageLocation, value: Data)?) throws -> Bool = { _ in false }
    ) throws -> Bool {
        try catalog.withKeyLock(location.key) {
            try settle(location.key)
            let current = try catalog.location(of: location.key).flatMap { held in
                try backend(for: held.tier, key: location.key).data(for: location.key).map { (held, $0) }
            }
            if try keep(current) { return false }
            let target = try opened(location.tier, key: location.key)
            var placed = location
            placed.backend = target.facts.name
            try moves.write(value, to: placed, allowingPlaintext: true)
            try target.backend.flush()
            return true
        }
    }
}
