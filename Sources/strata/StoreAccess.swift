import Foundation
import Strata
import Synchronization

/// How every verb opens the store its options name: as its configuration file (`<root>/strata.conf`) says,
/// explicit options winning.
enum StoreAccess {
    /// The store at `root`, checked for `use` (see ``StoreRoot/paths(for:)``). For a write, the store's catalog (when
    /// it has one) is opened as the ledger of the tier stores the verb opens, so that what the verb changes keeps the
    /// catalog true (see `Documentation/Storage.md`, "Writing through a tier's own API").
    static func paths(_ root: StoreRoot, for use: StoreRoot.Use) throws -> StoragePaths {
        let paths = try root.paths(for: use)
        if use == .write { _ = try ledger(for: paths) }
        return paths
    }

    /// Opens the catalog of the store at `root` as the ledger of its changes (see ``ledger(for:)``), for a verb that
    /// changes the store while it opens it only to read (a delete needs no `--create`).
    static func reportChanges(_ root: StoreRoot) throws {
        _ = try ledger(for: root.paths(for: .read))
    }

    /// The catalog of the store at `paths` as the ledger of the verb's writes (`nil` when the store has none), opened
    /// once and kept until the tool exits: tier stores on the root find it by themselves, those on a server (S3,
    /// PostgreSQL) are given it.
    static func ledger(for paths: StoragePaths) throws -> (any PlacementLedger)? {
        if let known = ledgers.withLock({ $0[paths.root] }) { return known }
        let opened = try Storage.catalogLedger(for: paths)
        ledgers.withLock { $0[paths.root] = .some(opened) }
        return opened
    }

    /// The ledgers opened, by root (the registry holds them weakly).
    private static let ledgers = Mutex<[String: (any PlacementLedger)?]>([:])

    /// A name option (`--suite`, `--keyring`, `--store`) whose value must be a plain name: never a path that could
    /// reach another store's files.
    /// - Parameter what: What it names (`suite`), for the message.
    static func nameOption(_ name: String, of what: String, _ help: String) -> Option<String> {
        Option(name, "NAME", help) { value in
            do {
                try StoragePaths.validateName(value, of: what)
            } catch let error as StorageError {
                throw UsageError("'\(name) \(value.escapedForDisplay)': \(error.message)")
            }
            return value
        }
    }

    /// The store's configuration: its `strata.conf`, else the built-in one.
    /// - Throws: ``StorageError`` (with the file's path and line) for a bad or newer file.
    static func configuration(_ paths: StoragePaths) throws -> StoreConfiguration {
        try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
    }

    /// The configuration of the store at `root` when a root is given, else the built-in one.
    static func configuration(_ root: StoreRoot, for use: StoreRoot.Use) throws -> StoreConfiguration {
        guard try root.path() != nil else { return StoreConfiguration() }
        return try configuration(paths(root, for: use))
    }

    /// A passphrase from `file` (a regular file of mode 0600, checked before it is read), else `variable`, else the
    /// terminal.
    static func passphrase(
        file: String?, variable: String = "STRATA_PASSPHRASE", prompt: String = "Passphrase: ",
        confirming: Bool = false, source: PassphraseSource = .keyring
    ) throws -> Secret {
        if let file, case .passphrase(let secret) = try KeyProvider.passphrase(contentsOf: file) {
            return secret
        }
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return Secret(value) }
        return Secret(
            try confirming
                ? Terminal.readNewSecret(prompt: prompt, source: source)
                : Terminal.readSecret(prompt: prompt, source: source))
    }

    /// Opens the SQLite record store at `path` only to read it: nothing is created or configured, and a file
    /// that is not a Strata store is refused unchanged (`not-a-store`, `corrupt`, `unsupported-version`).
    static func readOnlyRecords(at path: String) throws -> RecordStore {
        var configuration = RecordsConfiguration()
        configuration.isReadOnly = true
        return try RecordStore(path: path, configuration: configuration)
    }
}
