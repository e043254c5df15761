import Foundation
import StrataCatalog
import StrataSystem
import Synchronization

// Restoring a capture (see `Documentation/Backup.md`, "Capture and restore"): all-or-nothing into a new root, or some keys into
// this store. Either way the whole capture is first written into a staging folder and opened and verified there.
extension Storage {
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
        let (parent, base) = try restoreTarget(root)
        if let info = try? parent.status(of: base) {
            let isEmptyFolder =
                (info.st_mode & S_IFMT) == S_IFDIR
                && ((try? parent.openDirectory(base, create: false)?.isEmpty()) ?? false)
            guard isEmptyFolder else {
                throw StorageError(
                    .conflict, "the restore's target exists and is not an empty folder", path: root,
                    recovery: "Restore into a new folder, or remove this one first")
            }
        }
        let (staging, report, load) = try stage(
            source, besides: root, parent: parent, secretsKey: secretsKey, records: records)
        try load?.commit()
        do {
            try staging.move(to: root)
        } catch {
            // The schema was new or empty: dropping it leaves the server as it was.
            if let load { _ = try? PostgresRecordEngine.dropStore(load.configuration) }
            throw error
        }
        return report
    }

    /// Restores the keys of a capture that start with `prefix` into this store, each into the tier the capture's
    /// catalog places it in (a key written through a tier's own API, which the catalog does not record, into the
    /// tier that holds it; moving it there when this store keeps it elsewhere), replacing what this store holds
    /// under the same key. Keys of this store that the capture does not hold are left alone.
    ///
    /// The whole capture is first restored into a private staging folder beside this store's root and verified
    /// (as ``restore(from:to:secretsKey:records:)`` does); the keys are then copied through the tiers' APIs, each under its
    /// catalog lock, and the staging folder is removed.
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

    /// Writes `value` where `location` says, under the key's lock, recording it in the catalog; a copy in another
    /// tier is removed once the new one is recorded.
    func place(_ value: Data, at location: StorageLocation) throws {
        try catalog.withKeyLock(location.key) {
            let previous = try catalog.location(of: location.key)
            let target = try backend(for: location.tier, key: location.key)
            var placed = location
            placed.backend = target.name
            try store(value, in: target, at: placed, as: nil)
            try target.flush()
            try catalog.record([.set(placed)], durable: true)
            if let previous, previous.tier != placed.tier {
                let old = try backend(for: previous.tier, key: location.key)
                try old.delete(location.key)
                try old.flush()
            }
        }
    }

    /// The folder that holds `root`, and `root`'s last component.
    static func restoreTarget(_ root: String) throws -> (DirectoryHandle, String) {
        // A target is a folder: `new/` names the folder `new`.
        let target = LocalPath(root)
        guard let base = target.lastComponent else {
            throw StorageError(.invalidArgument, "the restore's target names no folder", path: root)
        }
        let parentPath = target.parent.string
        do throws(Errno) {
            return (try DirectoryHandle.open(path: parentPath), base)
        } catch {
            throw error.storageError("cannot open the folder the store is restored into", path: parentPath)
        }
    }

    /// Writes the whole capture into a new staging folder beside `target`, opens it as a store and verifies it.
    /// - Returns: The staging folder, the report, and the load of the records into PostgreSQL for a `.postgres`
    ///   target (not committed yet: the caller commits it just before moving the staged store into place).
    static func stage(
        _ source: some CaptureSource, besides target: String, parent: DirectoryHandle, secretsKey: KeyProvider?,
        records: RestoreRecordsTarget = .sqlite
    ) throws -> (RestoreStaging, RestoreReport, PostgresImport?) {
        let files = source.files
        let hasExport = try checkRecords(files, target: records)
        let staging = try RestoreStaging(besides: target, parent: parent)
        var report = RestoreReport()
        // The description first: it names the files copied ahead of the capture's instant to leave out.
        let describedAt = files.firstIndex { $0.tier == nil && $0.path == CaptureDescription.path }
        var skipped = Set<Int>()
        var missing: [String] = []
        if let describedAt {
            try staging.write([files[describedAt]], from: source)
            let description = try readDescription(in: staging)
            report.omissions = description.omissions
            missing = description.missing
            skipped = try withdrawnIndices(description.withdrawn, in: files)
        }
        // All at once, so that the source reads the next files' content while one is written.
        let restored = files.indices.filter { $0 != describedAt && !skipped.contains($0) }.map { files[$0] }
        try staging.write(restored, from: source)
        report.fileCount += restored.count
        try staging.makeDurable()
        try localizeConfiguration(in: staging)
        // A PostgreSQL export becomes the staged store's SQLite records (and a load into PostgreSQL, not committed).
        let load = hasExport ? try restoreRecordsExport(in: staging, target: records) : nil
        try verifyStaged(
            at: staging.path, secretsKey: secretsKey, missing: missing, checkedFiles: staging.checkedFiles,
            report: &report)
        if let load, case .postgres(let url, let schema) = records {
            try adopt(load, in: staging, url: url, schema: schema)
        }
        return (staging, report, load)
    }

    /// Checks the captured configuration and makes it name only what the restore put under the new root: records in
    /// SQLite (a PostgreSQL export is converted; a PostgreSQL target is named only once its load is adopted), files in
    /// the folder. A snapshot is data: the servers, URLs and environment variables its `strata.conf` names are never
    /// acted on during a restore, nor named by the restored store.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` or `.unsupportedVersion` (naming `strata.conf` and the line)
    ///   when the captured file does not read as a configuration of this Strata.
    static func localizeConfiguration(in staging: RestoreStaging) throws {
        let paths = try StoragePaths(root: staging.path, create: false)
        var configuration: StoreConfiguration
        do {
            guard let captured = try StoreConfiguration.read(from: paths) else { return }
            configuration = captured
        } catch var error as StorageError {
            error.path = StoreConfiguration.fileName
            error.recovery =
                "The snapshot holds a damaged or newer store configuration; restore another snapshot, or "
                + "restore this one with the Strata that made it"
            throw error
        }
        configuration.records.backend = "sqlite"
        configuration.records.url = nil
        configuration.records.urlVariable = nil
        configuration.files = StoreConfiguration.Files()
        try configuration.write(to: paths)
    }

    /// Reads and removes the capture's description written into the staging folder.
    static func readDescription(in staging: RestoreStaging) throws -> CaptureDescription {
        defer { staging.remove(CaptureDescription.path) }
        let data = try AtomicFile.read(in: staging.folder, name: CaptureDescription.path, maximumSize: 64 << 20)
        let description: CaptureDescription
        do {
            description = try JSONDecoder().decode(CaptureDescription.self, from: data ?? Data())
        } catch {
            throw StorageError(
                .corrupt, "the capture's description does not decode: \(error)", path: CaptureDescription.path)
        }
        guard description.version <= CaptureDescription.formatVersion else {
            throw StorageError(
                .unsupportedVersion,
                "the capture is of format \(description.version); this Strata reads up to "
                    + "\(CaptureDescription.formatVersion)", path: CaptureDescription.path,
                recovery: "Restore it with a newer Strata")
        }
        return description
    }

    /// The indices in `files` of the first file of each withdrawn path: copies made ahead of the capture's instant
    /// that were no longer current at it.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when a withdrawn path is not in the capture, or twice.
    static func withdrawnIndices(_ withdrawn: [String], in files: [CapturedFile]) throws -> Set<Int> {
        var first: [ExactString: Int] = [:]
        for (index, file) in files.enumerated() where first[ExactString(file.path)] == nil {
            first[ExactString(file.path)] = index
        }
        var indices = Set<Int>()
        for path in withdrawn {
            guard let index = first[ExactString(path)], files[index].tier == .files, indices.insert(index).inserted
            else {
                throw StorageError(
                    .corrupt, "the capture's description withdraws a file it does not hold once", tier: .files,
                    path: path, recovery: "The snapshot is damaged or was made by hand; restore another one")
            }
        }
        return indices
    }

    /// Opens the staged store, verifies its catalog (which drops the entries of values the capture does not hold) and
    /// reads every catalogued key back, on every core.
    ///
    /// An entry that names a value the capture does not hold — a key the capture found missing from its tier (listed
    /// in its description, `missing`), a secret it left out (`ThisDeviceOnly`), or, in a capture made before captures
    /// checked their keys, any key whose value was gone — is dropped, and the key reported in
    /// ``RestoreReport/missingKeys`` (but for the secrets left out, reported as omissions): the other keys restore.
    /// Any other disagreement fails the restore.
    ///
    /// A files-tier key whose file is in `checkedFiles` (its content's CRC-32 and size, as written, equal the
    /// checksum recorded with it) is opened and described rather than read again: what the tier's verification
    /// would compute is what was checked as it was written.
    /// - Parameters:
    ///   - missing: The keys the capture found missing.
    ///   - checkedFiles: The staged files (paths relative to the root) whose content was checked as written.
    static func verifyStaged(
        at path: String, secretsKey: KeyProvider?, missing: [String] = [], checkedFiles: Set<ExactString> = [],
        report: inout RestoreReport
    ) throws {
        // Before the store opens: opening moves an unreadable suite aside and starts it empty, and its catalogued
        // preferences would then pass for missing ones below.
        if var damaged = DefaultsStore.unreadableSuites(paths: try StoragePaths(root: path, create: false)).first {
            damaged.path = damaged.path.map { Tier.defaults.directoryName + "/" + (LocalPath($0).lastComponent ?? $0) }
            damaged.recovery = "The snapshot holds a damaged suite file; restore another snapshot"
            throw damaged
        }
        // Every tier where the restore put it, under the staged root: nothing from the environment either.
        let storage = try Storage(root: path, secretsKey: secretsKey, recordsURL: "", filesURL: "")
        let omitted = Set(
            report.omissions.filter { $0.tier == .secrets }.map {
                ExactString(String($0.key.dropFirst(SecretStore.storageBackendService.count + 1)))
            })
        try storage.catalog.forget(missing)
        let verified = try storage.verifyCatalog()
        report.missingKeys =
            missing
            + verified.repaired.filter { $0.foundIn == nil && !omitted.contains(ExactString($0.key)) }.map(\.key)
        guard verified.isSound else {
            throw StorageError(
                .corrupt, "the restored store does not verify: " + verified.lines.joined(separator: "; "), path: path,
                recovery: "The snapshot is inconsistent or damaged; restore another one")
        }
        // A tier that could not be listed fails the restore, but for secrets restored without their key: those
        // cannot be read, and are reported unchecked. With the key, a damaged or swapped item, or a wrong key, is
        // an error here, never a tier taken for a locked one.
        for tier in Tier.allCases {
            guard var unlisted = verified.uncheckedTiers[tier], tier != .secrets || secretsKey != nil else { continue }
            unlisted.tier = tier
            throw unlisted
        }
        var readable: [StorageLocation] = []
        for location in try storage.catalog.locations() {
            if location.tier == .secrets, verified.uncheckedTiers[.secrets] != nil {
                report.uncheckedKeys.append(location.key)
            } else {
                readable.append(location)
            }
        }
        try readBack(readable, in: storage, checkedFiles: checkedFiles, root: path)
        report.verifiedKeys += readable.count
    }

    /// Reads each of `locations` back from `storage`, on as many threads as there are cores (each holding one
    /// value at a time; a files-tier value is streamed), and fails with the first key, in order, that does not
    /// read.
    static func readBack(
        _ locations: [StorageLocation], in storage: Storage, checkedFiles: Set<ExactString>, root: String
    ) throws {
        let next = Atomic<Int>(0)
        // The first failure by position in `locations`, so the error does not depend on the threads' timing.
        let failure = Mutex<(index: Int, error: any Error)?>(nil)
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, locations.count))
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < locations.count, failure.withLock({ $0 == nil || $0!.index > index }) else { return }
                do {
                    try readBackValue(locations[index], in: storage, checkedFiles: checkedFiles, root: root)
                } catch {
                    failure.withLock { if $0 == nil || $0!.index > index { $0 = (index, error) } }
                }
            }
        }
        if let found = failure.withLock({ $0 }) { throw found.error }
    }

    /// Reads one catalogued key back (see ``readBack(_:in:checkedFiles:root:)``).
    private static func readBackValue(
        _ location: StorageLocation, in storage: Storage, checkedFiles: Set<ExactString>, root: String
    ) throws {
        func absent() -> StorageError {
            StorageError(
                .corrupt, "a catalogued key of the restored store reads as absent", tier: location.tier,
                key: location.key, path: root, recovery: "The snapshot is inconsistent; restore another one")
        }
        guard location.tier == .files else {
            guard try storage.data(for: location.key) != nil else { throw absent() }
            return
        }
        let files = try storage.files
        if checkedFiles.contains(ExactString(Tier.files.directoryName + "/" + location.key)) {
            // Opened under its lock, its head and checksum read: it opens, and its content was checked as written.
            guard let metadata = try files.metadata(location.key), metadata.checksum != nil else { throw absent() }
        } else {
            guard try files.exists(location.key) else { throw absent() }
            try files.read(location.key) { _ in }
        }
    }
}
