import Foundation
import StrataCore

extension Storage {
    /// Copies every key of `source` (a one-machine store) into this store (a shared one, say), each into the tier the
    /// source keeps it in, then reads every key back and compares it with the source's bytes.
    ///
    /// Each key is written as a restore writes it: under the key's lock, by the move protocol, durable before the
    /// next one, so an interrupted migration leaves every key either copied whole or not at all. Run again, it
    /// skips the keys this store already holds with the same bytes, so it resumes where it stopped. A key this store
    /// holds with other bytes (another machine wrote it since) is a conflict, left as it is unless `overwriting`.
    /// The source is only read: delete it once the report ``MigrationReport/isComplete``.
    ///
    /// ```swift
    /// let shared = try Storage(root: "/var/lib/myapp")             // declared shared
    /// let local = try Storage(root: "/var/lib/myapp-old")
    /// let report = try shared.migrate(from: local)
    /// print(report)                                                 // 1204 copied, 0 already there, 0 conflicts; 1204 verified
    /// ```
    /// - Parameters:
    ///   - source: The store to copy from; another root than this one.
    ///   - overwriting: Whether a key this store holds with other bytes is replaced. The default is `false`.
    ///   - progress: Called after each key with what was done.
    /// - Returns: What was done to each key.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` when `source` is this store, `.noBackend` for a
    ///   key whose tier this store has no backend for (checked for every key before any is written), `.corrupt`
    ///   naming a key that did not read back equal, or a tier's error (the keys copied before it stay copied; run it
    ///   again to go on).
    @discardableResult
    public func migrate(
        from source: Storage, overwriting: Bool = false,
        progress: ((_ key: String, _ outcome: MigrationReport.Outcome) -> Void)? = nil
    ) throws -> MigrationReport {
        guard source.paths.root != paths.root else {
            throw StorageError(
                .invalidArgument, "a store cannot be migrated into itself", path: paths.root,
                recovery: "Give the one-machine store as the source and the shared store as the target")
        }
        let locations = try source.keys(prefix: "").compactMap { try source.restorableLocation(of: $0) }
        // Every key's tier has a backend here before any key is written.
        for location in locations { _ = try opened(location.tier, key: location.key) }
        var report = MigrationReport()
        for location in locations {
            guard let value = try source.data(for: location.key) else { continue }  // Deleted meanwhile.
            let outcome: MigrationReport.Outcome
            if let existing = try data(for: location.key), !overwriting || existing == value {
                outcome = existing == value ? .alreadyThere : .conflict
            } else {
                try place(value, at: location)
                outcome = .copied
            }
            report.record(location.key, outcome)
            progress?(location.key, outcome)
        }
        for key in report.copied + report.alreadyThere {
            guard let copy = try data(for: key), let original = try source.data(for: key), copy == original else {
                throw StorageError(
                    .corrupt, "the key did not read back equal to the source's after the migration", key: key,
                    path: paths.root, recovery: "Run the migration again: it copies the keys that differ")
            }
            report.verified += 1
        }
        return report
    }
}
