import Foundation
import StrataCatalog

// Restoring chosen keys of a capture into this store: one key exactly, or every key with a prefix
// (`restore(keysWithPrefix:from:secretsKey:)`), each where the staged capture keeps it: its catalog's location, or
// the tier holding a key written through a tier's own API, as the store's own reads find it.
extension Storage {
    /// Restores exactly one key of a capture into this store, into the tier the capture's catalog places it in
    /// (or, for a key written through a tier's own API and so not in the catalog, the tier that holds it; moving it
    /// there when this store keeps it elsewhere), replacing what this store holds under it. Only that
    /// key: restoring `a` leaves `ab` alone. The key is matched by its exact Unicode scalars, as the catalog keeps
    /// it.
    ///
    /// The whole capture is first restored into a private staging folder beside this store's root and verified
    /// (as ``restore(from:to:secretsKey:records:)`` does; a PostgreSQL export goes into the staged SQLite store);
    /// the key is then written through its tier's API under its catalog lock, and the staging folder is removed.
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

    /// Stages the whole capture (records into SQLite), then writes the values at the locations `choose` picks
    /// from the staged store into this one (those that read back).
    /// - Returns: The keys restored, in the order chosen.
    func restoreKeys(
        from source: some CaptureSource, secretsKey: KeyProvider?, choose: (Storage) throws -> [StorageLocation]
    ) throws -> [String] {
        let (parent, _) = try Self.restoreTarget(paths.root)
        let (staging, _, _) = try Self.stage(source, besides: paths.root, parent: parent, secretsKey: secretsKey)
        let captured = try Storage(root: staging.path, secretsKey: secretsKey, recordsURL: "", filesURL: "")
        var restored: [String] = []
        for location in try choose(captured) {
            guard let value = try captured.data(for: location.key) else { continue }
            try place(value, at: location)
            restored.append(location.key)
        }
        return restored
    }
}
