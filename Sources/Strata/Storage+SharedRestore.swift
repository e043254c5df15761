import Foundation
import StrataBackup
import StrataCatalog
import StrataDefaultsPostgres
import StrataPostgres
import StrataRecords
import StrataSecrets
import StrataSecretsPostgres

// A capture restored into a new shared store: a new schema on the records' PostgreSQL server and a new S3 prefix
// (see `Documentation/Shared.md`, "Backups"). The capture is staged and verified beside the new root as a restore
// into a one-machine store is; then each tier is loaded onto the servers whole — the records' export into the
// schema (one transaction), every suite and keyring (the keyrings byte for byte, still sealed), every file — and the
// catalog recorded, so what a capture holds outside its keys (collections, other suites and keyrings) comes too.
extension Storage {
    /// Restores a capture of a whole store into a new shared store, declared by `configuration`
    /// (``/StrataCore/StoreConfiguration/Catalog/isShared``): its records' schema must be new or empty and its files'
    /// S3 prefix empty. Every machine then opens the store with the same configuration.
    ///
    /// The capture is first restored into a staging folder beside `root` and verified there, as
    /// ``restore(from:to:secretsKey:records:)`` does. Then: a capture of a store whose records were on PostgreSQL
    /// has its export loaded into the schema in one transaction (collections, indexes and the key-value table); a
    /// capture whose records were in SQLite has its values put (it may hold no collection); every suite's values
    /// and every keyring (its rows are the keyring folder's files: nothing is decrypted) go into the schema; every
    /// file to the S3 prefix; every catalog entry is recorded; and every key is read back from the shared store and
    /// compared with the staged one. `root` gets `strata.conf`: the configuration, with the suite and keyring names
    /// of the snapshot's store (its keys are in them) and defaults limits at least as large as its. No machine may
    /// open the new store before the restore returns. A restore that fails after it wrote to the servers drops the
    /// schema and the objects it wrote, and leaves `root` as it found it; one that is
    /// killed leaves them, and its next run refuses the schema or prefix as not empty (drop them, or name new ones).
    ///
    /// ```swift
    /// var configuration = StoreConfiguration()
    /// configuration.catalog.isShared = true
    /// configuration.records.backend = "postgres"
    /// configuration.records.url = "postgresql://app@db.internal/myapp?strata_schema=myapp_restored"
    /// configuration.files.backend = "s3"
    /// configuration.files.url = "s3://myapp-files/restored/"
    /// configuration.defaults.backend = "postgres"
    /// configuration.secrets.backend = "postgres"
    /// try Storage.restore(from: snapshot, toShared: "/var/lib/myapp", configuration: configuration)
    /// ```
    /// - Parameters:
    ///   - source: The capture.
    ///   - root: This machine's root of the new store: it must not exist, or be a folder that holds nothing but a
    ///     `strata.conf` (as `strata init --shared` writes it), which is replaced by `configuration`.
    ///   - configuration: The new shared store's configuration.
    ///   - secretsKey: What unlocks the restored keyrings to read their keys back. The default (`nil`) reads
    ///     `STRATA_SECRETS_KEY`; without either, credentials are checked for presence only
    ///     (``RestoreReport/uncheckedKeys``).
    /// - Returns: What was written and checked, and what the capture had left out.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` when `configuration` does not declare a shared store
    ///   (naming the setting) or for a capture whose SQLite records hold collections; `.conflict` naming the schema
    ///   or the S3 prefix when it is not empty, or `root` when it is not an empty folder; the restore's errors, as
    ///   ``restore(from:to:secretsKey:records:)``; a server's.
    @discardableResult
    public static func restore(
        from source: some CaptureSource, toShared root: String, configuration: StoreConfiguration,
        secretsKey: KeyProvider? = nil
    ) throws -> RestoreReport {
        guard configuration.catalog.isShared else {
            throw configuration.error(
                .invalidArgument, "the configuration does not declare a shared store (catalog.shared)",
                setting: "catalog.shared",
                recovery: "Set catalog.isShared (strata init --shared writes it), or restore into a one-machine "
                    + "store with restore(from:to:)")
        }
        let environment = ProcessInfo.processInfo.environment
        guard let recordsURL = try Storage.recordsURL(configuration, environment: environment) else {
            throw configuration.error(
                .invalidArgument, "a shared store keeps its records on PostgreSQL (records.backend)",
                setting: "records.backend", recovery: "Set records.backend to postgres and give its URL")
        }
        let server = PostgresConfiguration(connectionString: recordsURL)
        let target = try RestoreTarget(root)
        try target.checkVacant(allowing: [StoreConfiguration.fileName])
        // A root `strata init --shared` made (or an empty one) is left as it was if the restore fails.
        let rootExisted = FileManager.default.fileExists(atPath: root)
        let original = FileManager.default.contents(atPath: root + "/" + StoreConfiguration.fileName)
        let hasExport = source.files.contains { $0.tier == .records && $0.path.hasPrefix(PostgresCapture.folder + "/") }
        let staged = try StagedRestore(
            source, besides: target, secretsKey: secretsKey,
            records: hasExport ? .postgres(url: recordsURL, schema: nil) : .sqlite)
        let configuration = try Self.restoredConfiguration(configuration, captured: staged)
        // The staged store, its records read from the schema once the export's load commits.
        func openStaged() throws -> Storage {
            try Storage(
                root: staged.staging.path, secretsKey: secretsKey, recordsURL: hasExport ? nil : "", filesURL: "")
        }
        if !hasExport {
            try refuseCollections(in: openStaged())
            // (An export's load checked its schema under the schema's lock.)
            try PostgresImport.refuseNonEmptySchema(server)
        }
        // From here the servers are written: a failure removes what this restore wrote (the schema was new or empty,
        // and no machine may open the new store before the restore returns).
        var store: Storage?
        var filesWritten: [String] = []
        do {
            try staged.load?.commit()
            let captured = try openStaged()
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try configuration.write(to: StoragePaths(root: root))
            let shared = try Storage(root: root, secretsKey: secretsKey, configuration: configuration)
            store = shared
            guard try shared.backend(for: .files).keys().isEmpty else {
                throw StorageError(
                    .conflict,
                    "the S3 prefix of the new shared store is not empty: a restore writes only into an "
                        + "empty one", tier: .files, path: try configuration.filesURL(environment: environment),
                    recovery: "Name a new prefix (files.url), or empty this one first")
            }
            var report = staged.report
            try loadSuites(from: captured, into: server, configuration: configuration)
            let key = secretsKey ?? Storage.environmentSecretsKey()
            try loadKeyrings(from: captured, into: server, key: key)
            try loadValues(from: captured, into: shared, hasExport: hasExport, written: &filesWritten)
            try recordCatalog(of: captured, in: shared)
            try checkRestored(shared, against: captured, hasKey: key != nil, report: &report)
            return report
        } catch {
            // The objects through the store already open (reopening it would make its catalog again), then the
            // schema, then the root as it was.
            if let files = try? store?.backend(for: .files) {
                for key in filesWritten { _ = try? files.delete(key) }
            }
            store = nil
            _ = try? PostgresRecordEngine.dropStore(server)
            if rootExisted {
                // What the store made inside the root goes; the root and its `strata.conf` stay as they were.
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
                where entry != StoreConfiguration.fileName {
                    try? FileManager.default.removeItem(atPath: root + "/" + entry)
                }
                let file = root + "/" + StoreConfiguration.fileName
                if let original {
                    try? original.write(to: URL(fileURLWithPath: file))
                } else {
                    try? FileManager.default.removeItem(atPath: file)
                }
            } else {
                try? FileManager.default.removeItem(atPath: root)
            }
            throw error
        }
    }

    /// The configuration the new store gets: `configuration`, with the names the snapshot's store kept its keys
    /// under — its suite and keyring (the catalog places keys in them) — and defaults limits at least as large as
    /// the snapshot's (its suites must fit), and the key names it allowed in defaults besides.
    private static func restoredConfiguration(_ configuration: StoreConfiguration, captured staged: StagedRestore)
        throws -> StoreConfiguration
    {
        let captured =
            try StoreConfiguration.read(from: StoragePaths(root: staged.staging.path)) ?? StoreConfiguration()
        var restored = configuration
        restored.defaults.suite = captured.defaults.suite
        restored.secrets.keyring = captured.secrets.keyring
        restored.selector.defaults.valueLimit = max(
            configuration.selector.defaults.valueLimit, captured.selector.defaults.valueLimit)
        restored.selector.defaults.suiteBudget = max(
            configuration.selector.defaults.suiteBudget, captured.selector.defaults.suiteBudget)
        for name in captured.defaults.allowedSensitiveKeys
        where !restored.defaults.allowedSensitiveKeys.contains(where: {
            $0.unicodeScalars.elementsEqual(name.unicodeScalars)
        }) {
            restored.defaults.allowedSensitiveKeys.append(name)
        }
        return restored
    }

    /// Refuses a staged store whose SQLite records hold collections: only a PostgreSQL export loads them whole.
    private static func refuseCollections(in captured: Storage) throws {
        guard let records = try captured.backend(for: .records) as? RecordStore,
            case let collections = try records.collectionNames(), !collections.isEmpty
        else { return }
        throw StorageError(
            .invalidArgument,
            "the capture's records are in SQLite and hold the collections \(collections.joined(separator: ", ")), "
                + "which a restore into a shared store loads only from a PostgreSQL export", tier: .records,
            recovery: "Restore into a one-machine store with its records on PostgreSQL (records: .postgres, "
                + "strata restore --records-url), or move the collections with strata records export/import")
    }

    /// Writes every suite of the staged store (its suite files) into the server's suites, values as they are.
    private static func loadSuites(
        from captured: Storage, into server: PostgresConfiguration, configuration: StoreConfiguration
    ) throws {
        let folder = captured.paths.directoryPath(for: .defaults)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for file in files.sorted() where file.hasSuffix(".plist") {
            let name = String(file.dropLast(".plist".count))
            let staged = try DefaultsStore(
                suite: name, paths: captured.paths, configuration: Storage.defaultsConfiguration(captured.configuration)
            )
            let suite = try PostgresDefaults(
                suite: name, configuration: server, limits: configuration.selector.defaults,
                allowedSensitiveKeys: Set(configuration.defaults.allowedSensitiveKeys))
            for (key, value) in staged.dictionaryRepresentation().sorted(by: { $0.key < $1.key }) {
                try suite.set(value, forKey: key.string, allowingSensitiveName: true)
            }
        }
    }

    /// Puts every keyring folder of the staged store on the server. With a key, each item is read from the folder's
    /// keyring and written into a new keyring of the same name (whatever state the folder is in: items a capture
    /// left out, writes cut short); without one, the folder is loaded byte for byte, still sealed, when the server's
    /// keyring reads it as the folder's would (`PostgresSecrets.load(keyringFolder:)` refuses it otherwise).
    private static func loadKeyrings(
        from captured: Storage, into server: PostgresConfiguration, key: KeyProvider?
    ) throws {
        let folder = captured.paths.directoryPath(for: .secrets)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder),
                isFolder.boolValue
            else { continue }
            let keyring = try PostgresSecrets(keyring: name, configuration: server)
            guard let key else {
                try keyring.load(keyringFolder: folder + "/" + name)
                continue
            }
            let staged = try SecretStore(keyring: name, paths: captured.paths, unlockingWith: key)
            try keyring.unlock(with: key)
            for item in try staged.items() {
                guard let value = try staged.get(service: item.service, account: item.account) else { continue }
                try keyring.set(
                    value, service: item.service, account: item.account, label: item.label,
                    accessibility: item.accessibility)
            }
        }
    }

    /// Writes the values that are not loaded as whole tiers: every file, and the records' values when the capture
    /// holds no export (an export is loaded whole).
    private static func loadValues(
        from captured: Storage, into store: Storage, hasExport: Bool, written: inout [String]
    ) throws {
        for key in try captured.files.list() {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: try captured.files.path(for: key)))
            defer { try? handle.close() }
            written.append(key)
            try store.files.write(to: key, from: handle)
        }
        guard !hasExport else { return }
        let records = try store.backend(for: .records)
        for key in try captured.backend(for: .records).keys() {
            guard let value = try captured.backend(for: .records).data(for: key) else { continue }
            try records.put(value, for: key)
        }
    }

    /// Records every entry of the staged catalog in the shared one, naming the shared store's backend of its tier.
    private static func recordCatalog(of captured: Storage, in store: Storage) throws {
        var names: [Tier: String] = [:]
        for tier in Tier.allCases { names[tier] = try store.registry.facts(for: tier).name }
        let changes = try captured.catalog.locations().map { location in
            var placed = location
            placed.backend = names[location.tier] ?? location.backend
            return CatalogChange.set(placed)
        }
        for start in stride(from: 0, to: changes.count, by: 1000) {
            try store.catalog.record(Array(changes[start..<min(start + 1000, changes.count)]), durable: true)
        }
    }

    /// Checks the shared store: its catalog verifies, and every key the staged store holds reads back equal (a
    /// credential only when the keyring can be unlocked; else it is reported unchecked). The records of an export
    /// are read from the same schema on both sides: they were checked against the staged SQLite store before the
    /// load committed.
    private static func checkRestored(
        _ store: Storage, against captured: Storage, hasKey: Bool, report: inout RestoreReport
    ) throws {
        let verified = try store.verifyCatalog()
        guard verified.isSound else {
            throw StorageError(
                .corrupt, "the restored shared store does not verify: " + verified.lines.joined(separator: "; "),
                path: store.paths.root, recovery: "Nothing is kept; run the restore again")
        }
        // A tier that could not be listed fails the restore, but for secrets without their key: those are reported
        // unchecked. With the key, a keyring the server cannot read is an error here, never taken for a locked one.
        for (tier, unlisted) in verified.uncheckedTiers.sorted(by: { $0.key.catalogCode < $1.key.catalogCode })
        where tier != .secrets || hasKey {
            var error = unlisted
            error.tier = tier
            throw error
        }
        let secretsLocked = verified.uncheckedTiers[.secrets] != nil
        report.uncheckedKeys = []
        report.verifiedKeys = 0
        for location in try captured.catalog.locations() {
            if location.tier == .secrets, secretsLocked {
                report.uncheckedKeys.append(location.key)
                continue
            }
            guard try store.data(for: location.key) == captured.data(for: location.key) else {
                throw StorageError(
                    .corrupt, "a key of the restored shared store does not read back as the capture holds it",
                    tier: location.tier, key: location.key, path: store.paths.root,
                    recovery: "Nothing is kept; run the restore again")
            }
            report.verifiedKeys += 1
        }
    }
}
