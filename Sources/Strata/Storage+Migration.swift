import Foundation
import StrataCore
import StrataRecords
import StrataSecrets

extension Storage {
    /// Copies every key of `source` (a one-machine store) into this store (a shared one, say), each into the tier the
    /// source keeps it in, then reads every key back and compares it with what was copied.
    ///
    /// Each key is written as a restore writes it: under the key's lock, by the move protocol, durable before the
    /// next one, so an interrupted migration leaves every key either copied whole or not at all. Run again, it
    /// skips the keys this store already holds in the same tier with the same bytes, so it resumes where it stopped.
    /// A key this store holds otherwise (another machine wrote it), decided under the key's lock, is a conflict,
    /// left as it is unless `overwriting`; so is a key changed here after it was copied. What the source keeps
    /// outside its keys (record collections, other suites and keyrings, keyring items of other services) is not
    /// copied: the report names it (``MigrationReport/notMigrated``). The source's values are only read.
    ///
    /// ```swift
    /// let shared = try Storage(root: "/var/lib/myapp")             // declared shared
    /// let local = try Storage(root: "/var/lib/myapp-old")
    /// let report = try shared.migrate(from: local)
    /// print(report)                                                 // 1204 copied, 0 already there, 0 conflicts; 1204 verified
    /// ```
    /// - Parameters:
    ///   - source: The store to copy from; another root than this one.
    ///   - overwriting: Whether a key this store holds otherwise is replaced. The default is `false`.
    ///   - progress: Called after each key with what was done.
    /// - Returns: What was done to each key.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` when `source` is this store, `.noBackend` for a
    ///   key whose tier this store has no backend for, `.locked` when the source has credentials and its keyring
    ///   cannot be unlocked (both checked before any key is written), or a tier's error (the keys copied before it
    ///   stay copied; run it again to go on).
    @discardableResult
    public func migrate(
        from source: Storage, overwriting: Bool = false,
        progress: ((_ key: String, _ outcome: MigrationReport.Outcome) -> Void)? = nil
    ) throws -> MigrationReport {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        guard resolved(source.paths.root) != resolved(paths.root) else {
            throw StorageError(
                .invalidArgument, "a store cannot be migrated into itself", path: paths.root,
                recovery: "Give the one-machine store as the source and the shared store as the target")
        }
        var report = MigrationReport()
        report.notMigrated = source.dataOutsideKeys()
        let locations = try source.keys(prefix: "").compactMap { try source.restorableLocation(of: $0) }
        // Every key's tier has a backend here, and the source's credentials can be read, before any key is written.
        for location in locations { _ = try opened(location.tier, key: location.key) }
        if locations.contains(where: { $0.tier == .secrets }) { _ = try source.backend(for: .secrets).keys() }
        var copied: [String: [UInt8]] = [:]
        for location in locations {
            guard let value = try source.data(for: location.key) else {
                report.skipped.append(location.key)  // Deleted from the source meanwhile.
                continue
            }
            var outcome = MigrationReport.Outcome.copied
            try place(value, at: location) { current in
                guard let current else { return false }
                if current.location.tier == location.tier, current.value == value {
                    outcome = .alreadyThere
                    return true
                }
                if overwriting { return false }
                outcome = .conflict
                return true
            }
            if outcome != .conflict { copied[location.key] = Self.digest(value) }
            report.record(location.key, outcome)
            progress?(location.key, outcome)
        }
        // Read back: a key changed here since it was copied (by another machine) is a conflict too.
        for key in report.copied + report.alreadyThere {
            guard let copy = try data(for: key), Self.digest(copy) == copied[key] else {
                report.changedSince(key)
                continue
            }
            report.verified += 1
        }
        return report
    }

    /// SHA-256 of a value, to compare what was copied with what reads back without keeping both.
    private static func digest(_ value: Data) -> [UInt8] {
        Sodium.sha256 { feed in value.withUnsafeBytes { feed($0) } }
    }

    /// What this store keeps outside the keys a migration copies, one line each: record collections, suites and
    /// keyrings other than the configured ones, and items of the configured keyring under other services.
    func dataOutsideKeys() -> [String] {
        var outside: [String] = []
        if let records = try? backend(for: .records) as? RecordStore,
            let collections = try? records.collectionNames(), !collections.isEmpty
        {
            outside.append("records: the collections \(collections.joined(separator: ", ")) (strata records export)")
        }
        let folders = { (tier: Tier) in
            ((try? FileManager.default.contentsOfDirectory(atPath: self.paths.directoryPath(for: tier))) ?? []).sorted()
        }
        for suite in folders(.defaults)
        where suite.hasSuffix(".plist") && suite != configuration.defaults.suite + ".plist" {
            outside.append("defaults: the suite \(suite.dropLast(6)) (strata defaults export --suite)")
        }
        for keyring in folders(.secrets) where keyring != configuration.secrets.keyring && !keyring.hasPrefix(".") {
            outside.append("secrets: the keyring \(keyring) (strata secrets ... --keyring)")
        }
        if let items = try? secrets.items(),
            case let others = items.filter({ $0.service != SecretStore.storageBackendService }), !others.isEmpty
        {
            outside.append(
                "secrets: \(others.count) item(s) of other services in the keyring \(configuration.secrets.keyring)")
        }
        return outside
    }
}
