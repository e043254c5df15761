import Foundation
import StrataBackup
import StrataCatalog
import StrataSystem
import Synchronization

/// A capture restored into a staging folder beside its target and verified there (see `Documentation/Backup.md`,
/// "Capture and restore"), ready to be moved into place or read from; released unmoved, its folder is removed.
///
/// The files are written and made durable by ``/StrataBackup/RestoreStaging``; here the tiers are opened: a
/// PostgreSQL records export is converted into the staged SQLite store (and, for a PostgreSQL target, loaded into
/// the target schema, not committed), then the staged store is opened, its catalog verified and every catalogued key
/// read back.
struct StagedRestore {
    /// The staging folder: the staged store's root.
    let staging: RestoreStaging
    /// What was written and checked.
    let report: RestoreReport
    /// The load of the records into PostgreSQL for a `.postgres` target, not committed yet: ``moveIntoPlace()``
    /// commits it just before the move.
    let load: PostgresImport?

    /// Writes the whole of `source` into a new staging folder beside `target`, converts its records as `records`
    /// says, opens the staged store and verifies it.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` for a PostgreSQL target and a capture whose records
    ///   are not an export, `.corrupt` naming the file for hostile or damaged capture content or a staged store that
    ///   does not verify, the source's errors, or an I/O error.
    init(
        _ source: some CaptureSource, besides target: RestoreTarget, secretsKey: KeyProvider?,
        records: RestoreRecordsTarget = .sqlite
    ) throws {
        let hasExport = try Self.checkRecords(source.files, target: records)
        let staging = try RestoreStaging(
            besides: target, storeFiles: [StoreConfiguration.fileName, StorageCatalog.capturedLogPath])
        let (description, fileCount) = try staging.write(capture: source)
        var report = RestoreReport(fileCount: fileCount, omissions: description?.omissions ?? [])
        // The catalog is the file the capture wrote, whichever engine kept it: the staged store is one machine's.
        try Self.localizeCatalog(in: staging)
        // A PostgreSQL export becomes the staged store's SQLite records (and a load into PostgreSQL, not committed).
        let load = hasExport ? try Self.restoreRecordsExport(in: staging, target: records) : nil
        // The files are in the staged folder, whichever engine they were captured from.
        try Self.localizeFiles(in: staging)
        try Self.verify(
            at: staging.path, secretsKey: secretsKey, missing: description?.missing ?? [],
            checkedFiles: staging.checkedFiles, report: &report)
        if let load, case .postgres(let url, let schema) = records {
            try Self.adopt(load, in: staging, url: url, schema: schema)
        }
        self.staging = staging
        self.report = report
        self.load = load
    }

    /// Commits the PostgreSQL load, if any, and moves the staged store to its target with one rename(2).
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` when something appeared at the target meanwhile, or an I/O
    ///   error; the PostgreSQL schema loaded is dropped then.
    func moveIntoPlace() throws {
        try load?.commit()
        do {
            try staging.move()
        } catch {
            // The schema was new or empty: dropping it leaves the server as it was.
            if let load { _ = try? PostgresRecordEngine.dropStore(load.configuration) }
            throw error
        }
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
    static func verify(
        at path: String, secretsKey: KeyProvider?, missing: [String], checkedFiles: Set<ExactString>,
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
        let files = storage.files
        if checkedFiles.contains(ExactString(Tier.files.directoryName + "/" + location.key)) {
            // Opened under its lock, its head and checksum read: it opens, and its content was checked as written.
            guard let metadata = try files.metadata(location.key), metadata.checksum != nil else { throw absent() }
        } else {
            guard try files.exists(location.key) else { throw absent() }
            try files.read(location.key) { _ in }
        }
    }
}
