import Foundation
import Strata
import Synchronization

/// The options every tier verb shares, and how they open the store: as its configuration file
/// (`<root>/strata.conf`) says, explicit options winning.
enum StoreAccess {
    static let rootOption = StoreRoot.option
    static let passphraseOptions: [OptionSpec] = [
        .value("--keyring", "NAME", "The keyring. The default is the store configuration's, else 'default'."),
        .value(
            "--passphrase-file", "FILE",
            "Read the passphrase from FILE, mode 0600 (else STRATA_PASSPHRASE, else the terminal)."),
    ]

    /// The store at `--root` or `STRATA_ROOT`, checked for `use` (see ``StoreRoot/paths(_:for:positional:)``). For a
    /// write, the store's catalog (when it has one) is opened as the ledger of the tier stores the verb opens, so
    /// that what the verb changes keeps the catalog true (see `Documentation/Storage.md`, "Writing through a tier's
    /// own API").
    static func paths(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> StoragePaths {
        let paths = try StoreRoot.paths(parsed, for: use)
        if use == .write { _ = try ledger(for: paths) }
        return paths
    }

    /// Opens the catalog of the store the verb names as the ledger of its changes (see ``ledger(for:)``), for a verb
    /// that changes the store while it opens it only to read (a delete needs no `--create`).
    static func reportChanges(_ parsed: ParsedArguments) throws {
        _ = try ledger(for: StoreRoot.paths(parsed, for: .read))
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

    /// The value of a name option (`--suite`, `--keyring`, `--store`), checked to be a plain name: never a path that
    /// could reach another store's files.
    /// - Throws: ``UsageError`` naming the option and the rule the name breaks.
    static func name(_ parsed: ParsedArguments, _ option: String, of what: String) throws -> String? {
        guard let value = parsed.value(option) else { return nil }
        do {
            try StoragePaths.validateName(value, of: what)
        } catch {
            throw UsageError("'\(option) \(value.escapedForDisplay)': \(error.message)")
        }
        return value
    }

    /// The store's configuration: its `strata.conf`, else the built-in one.
    /// - Throws: ``StorageError`` (with the file's path and line) for a bad or newer file.
    static func configuration(_ paths: StoragePaths) throws -> StoreConfiguration {
        try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
    }

    /// The defaults suite a tier verb works on: `--suite`, else the configuration's, with the configuration's
    /// limits and allowed names; every set durable before the verb returns.
    static func defaults(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> DefaultsStore {
        let (suite, paths, configuration) = try defaultsSuite(parsed, for: use)
        return try DefaultsStore(suite: suite, paths: paths, configuration: configuration)
    }

    /// The values of the defaults suite a read verb looks at (as ``defaults(_:for:)`` names it), read without
    /// opening the suite: nothing is created or changed.
    ///
    /// A suite named with `--suite` must exist: a mistyped name is an error listing the store's suites, not an empty
    /// suite (the configured suite may be absent — a store nothing was written to reads empty).
    static func defaultsSnapshot(_ parsed: ParsedArguments) throws -> [ExactString: PropertyListValue] {
        let (suite, paths, configuration) = try defaultsSuite(parsed, for: .read)
        let values = try DefaultsStore.snapshot(suite: suite, paths: paths, configuration: configuration)
        if values.isEmpty, parsed.value("--suite") != nil {
            let folder = paths.directoryPath(for: .defaults)
            guard FileManager.default.fileExists(atPath: folder + "/" + suite + ".plist") else {
                let suites = InspectCommand.names(in: folder, suffix: ".plist").map { String($0.dropLast(6)) }
                throw StorageError(
                    .notFound, "the store has no suite named '\(suite)'", tier: .defaults, key: suite, path: folder,
                    recovery: suites.isEmpty
                        ? "The store has no suites yet: 'strata defaults set KEY VALUE --suite NAME' makes one"
                        : "Its suites: \(suites.joined(separator: ", ")) (check --suite)")
            }
        }
        return values
    }

    /// The suite's name, the store, and the defaults configuration for a tier verb.
    static func defaultsSuite(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> (
        String, StoragePaths, DefaultsConfiguration
    ) {
        let paths = try self.paths(parsed, for: use)
        let configuration = try self.configuration(paths)
        var defaults = Storage.defaultsConfiguration(configuration)
        defaults.durability = .durable
        defaults.watchesExternalChanges = false
        return (try name(parsed, "--suite", of: "suite") ?? configuration.defaults.suite, paths, defaults)
    }

    static let filesURLOption = OptionSpec.value(
        "--url", "URL",
        "An s3://bucket/prefix URL: the files on S3 (or set STRATA_FILES_URL). The server, region and keys come from "
            + "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")

    /// The file tier: on S3 when `--url` is an `s3://` URL, or the root's configuration puts the files tier there,
    /// or (without a configuration that says otherwise) `STRATA_FILES_URL` is one; else the folder under the root,
    /// or `nil` when a read verb finds none (it is not created for a read).
    /// - Parameter reportingChanges: Whether the verb changes files, which the store's catalog then records. The
    ///   default is `use == .write`.
    static func files(_ parsed: ParsedArguments, for use: StoreRoot.Use, reportingChanges: Bool? = nil) throws
        -> FileStore?
    {
        let reportingChanges = reportingChanges ?? (use == .write)
        if let location = try filesLocation(parsed, for: use) {
            var configuration = FilesConfiguration()
            if reportingChanges, try StoreRoot.path(parsed) != nil {
                configuration.placement = try ledger(for: paths(parsed, for: use))
            }
            return try Storage.s3FileStore(location, configuration: configuration) {
                try SecretsAccess.open(parsed, for: .read)
            }
        }
        let paths = try self.paths(parsed, for: use)
        guard use == .write || FileManager.default.fileExists(atPath: paths.directoryPath(for: .files)) else {
            return nil
        }
        return try FileStore(paths: paths)
    }

    /// The S3 location of the file tier (see ``files(_:for:)``), or `nil` for the folder under the root. `--url`
    /// takes the endpoint, region and credentials' source of the root's configuration when a root is given.
    /// - Throws: ``StorageError`` `.invalidArgument` naming the malformed part of the URL (its `attribute`).
    static func filesLocation(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> S3FilesLocation? {
        let environment = ProcessInfo.processInfo.environment
        var configuration = StoreConfiguration()
        if try StoreRoot.path(parsed) != nil { configuration = try self.configuration(try paths(parsed, for: use)) }
        if let url = parsed.value("--url"), !url.isEmpty {
            return try S3FilesLocation(url: url, settings: configuration.files, environment: environment)
        }
        return try Storage.filesLocation(configuration, environment: environment)
    }

    /// A passphrase from `fileOption` (a regular file of mode 0600, checked before it is read), else `variable`,
    /// else the terminal.
    static func passphrase(
        _ parsed: ParsedArguments, fileOption: String = "--passphrase-file", variable: String = "STRATA_PASSPHRASE",
        prompt: String = "Passphrase: ", confirming: Bool = false
    ) throws -> Secret {
        if let file = parsed.value(fileOption),
            case .passphrase(let secret) = try KeyProvider.passphrase(contentsOf: file)
        {
            return secret
        }
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return Secret(value) }
        return Secret(try confirming ? Terminal.readNewSecret(prompt: prompt) : Terminal.readSecret(prompt: prompt))
    }

    static let urlOption = OptionSpec.value(
        "--url", "URL", "A postgresql:// connection string: the store on PostgreSQL (or set STRATA_RECORDS_URL).")

    /// The record store: on PostgreSQL when `--url` is a `postgresql://` string, or the root's configuration puts
    /// the records tier there, or (without a configuration that says otherwise) `STRATA_RECORDS_URL` is one; else
    /// the SQLite store of the root (`--store`, else the configuration's), which must exist unless `use` is
    /// `.write`, and is then opened read-only.
    static func records(_ parsed: ParsedArguments, for use: StoreRoot.Use = .read) throws -> RecordStore {
        try records(parsed, for: use, missingIsEmpty: false)!
    }

    /// The record store as ``records(_:for:)`` opens it, or `nil` when a read finds no SQLite record store where
    /// the root's configuration puts it: the tier is empty, and a read verb shows it empty. A `--store` name given
    /// that does not exist stays `not-found` (a mistyped name never reads as an empty store).
    static func recordsIfPresent(_ parsed: ParsedArguments) throws -> RecordStore? {
        try records(parsed, for: .read, missingIsEmpty: true)
    }

    private static func records(_ parsed: ParsedArguments, for use: StoreRoot.Use, missingIsEmpty: Bool) throws
        -> RecordStore?
    {
        let environment = ProcessInfo.processInfo.environment
        if let url = parsed.value("--url"), !url.isEmpty {
            guard PostgresConfiguration.isPostgresURL(url) else {
                throw UsageError("'--url' takes a postgresql:// connection string")
            }
            return try PostgresRecordEngine.store(PostgresConfiguration(connectionString: url))
        }
        var configuration = StoreConfiguration()
        if try StoreRoot.path(parsed) != nil { configuration = try self.configuration(try paths(parsed, for: use)) }
        if let url = try Storage.recordsURL(configuration, environment: environment) {
            return try PostgresRecordEngine.store(PostgresConfiguration(connectionString: url))
        }
        let paths = try self.paths(parsed, for: use)
        let name = try self.name(parsed, "--store", of: "record store") ?? configuration.records.store
        if use == .write { return try RecordStore(name: name, paths: paths) }
        let path = RecordStore.sqlitePath(name: name, paths: paths)
        guard FileManager.default.fileExists(atPath: path) else {
            if missingIsEmpty && parsed.value("--store") == nil { return nil }
            throw StorageError(
                .notFound, "there is no record store '\(name)'", tier: .records, path: path,
                recovery: "Check --store and --root; 'strata records import COLLECTION FILE' makes the store")
        }
        return try readOnlyRecords(at: path)
    }

    /// Opens the SQLite record store at `path` only to read it: nothing is created or configured, and a file
    /// that is not a Strata store is refused unchanged (`not-a-store`, `corrupt`, `unsupported-version`).
    static func readOnlyRecords(at path: String) throws -> RecordStore {
        var configuration = RecordsConfiguration()
        configuration.isReadOnly = true
        return try RecordStore(path: path, configuration: configuration)
    }

    static func printJSON(_ value: JSONValue) { print(value.description) }
}
