import Foundation
import Strata

/// `strata init ROOT`: writes (or updates) the store's configuration file, `ROOT/strata.conf`.
struct InitCommand: ToolCommand {
    static let recordsURLVariableOption = Option(
        "--records-url-variable", "NAME",
        "Records on PostgreSQL, the connection string read from the environment variable NAME when the store opens "
            + "(STRATA_RECORDS_URL): the file holds no password.")
    static let recordsURLOption = Option(
        "--records-url", "URL",
        "Records on PostgreSQL at URL, written into the file as given (a password in it is stored too)."
    ) { url in
        guard PostgresConfiguration.isPostgresURL(url) else {
            throw UsageError("'--records-url' takes a postgresql:// connection string")
        }
        return url
    }
    static let recordsSQLiteFlag = Flag("--records-sqlite", "Records in the SQLite file under the root (the default).")
    static let filesURLOption = Option(
        "--files-url", "URL", "Files on S3 at s3://bucket/prefix (endpoint and keys from AWS_* variables)."
    ) { url in
        guard url.lowercased().hasPrefix("s3://") else {
            throw UsageError("'--files-url' takes an s3://bucket/prefix URL")
        }
        return url
    }
    static let filesURLVariableOption = Option(
        "--files-url-variable", "NAME", "Files on S3, the s3:// location read from the environment variable NAME.")
    static let sharedFlag = Flag(
        "--shared",
        "A store that several machines share: the catalog on the records' PostgreSQL server, records there, files "
            + "on S3 (both required). Documentation/Shared.md.")
    static let valueLimitOption = Option(
        "--defaults-value-limit", "SIZE", "The largest preference in defaults (64KiB); larger go to files.",
        read: positiveSize)
    static let suiteBudgetOption = Option(
        "--defaults-suite-budget", "SIZE", "The largest a defaults suite may grow (1MiB).", read: positiveSize)
    static let allowSensitiveKeyOption = Option(
        "--allow-sensitive-key", "NAME",
        "A key name allowed in defaults although it looks like a credential. Repeatable.",
        repeatable: true)
    static let minimumOSOption = Option(
        "--min-os", "OS", "The app's minimum OS (iOS17 reports records as SwiftData).", read: SelectCommand.minimumOS)
    static let configuration = CommandConfiguration(
        "init",
        summary: "Write the store's configuration (ROOT/strata.conf): each tier's backend, the limits, allowed names.",
        usage:
            "init [ROOT] [--root DIR] [--shared] [--records-url-variable NAME | --records-url URL | --records-sqlite] "
            + "[--files-url URL | --files-url-variable NAME] "
            + "[--defaults-value-limit SIZE] [--defaults-suite-budget SIZE] [--allow-sensitive-key NAME]... [--min-os OS] [--json]",
        details:
            "Every strata verb and Storage(root:) read the file; explicit options and arguments win over it. An existing "
            + "file is kept and the options given are applied to it. The format is in Documentation/Storage.md.",
        arguments: [StoreRoot.positional],
        options: [
            StoreRoot.option, sharedFlag, recordsURLVariableOption, recordsURLOption, recordsSQLiteFlag,
            filesURLOption, filesURLVariableOption, valueLimitOption,
            suiteBudgetOption, allowSensitiveKeyOption, minimumOSOption, JSONOutput.option,
        ])

    /// A size limit: more than 0 bytes.
    @Sendable static func positiveSize(_ text: String) throws -> Int {
        let size = try SelectCommand.parseSize(text)
        guard size > 0 else { throw UsageError("a limit must be more than 0 bytes") }
        return size
    }

    /// Where the records tier goes, when an option says.
    enum Records {
        /// On PostgreSQL, the connection string read from this environment variable when the store opens.
        case urlVariable(String)
        /// On PostgreSQL at this URL, written into the file.
        case url(String)
        /// In SQLite under the root.
        case sqlite
    }

    /// Where the files tier goes, when an option says.
    enum Files {
        /// On S3, the location read from this environment variable when the store opens.
        case urlVariable(String)
        /// On S3 at this `s3://` location, written into the file.
        case url(String)
    }

    var root: String
    var shared: Bool
    var records: Records?
    var files: Files?
    var valueLimit: Int?
    var suiteBudget: Int?
    var allowedSensitiveKeys: [String]
    var minimumOS: PlatformVersion?
    var json: Bool

    /// Every option is checked here, before anything is created.
    init(parsing arguments: inout ParsedArguments) throws {
        let root = try StoreRoot(parsing: &arguments, positional: StoreRoot.positional)
        guard let path = try root.path() else {
            throw UsageError(
                "the store root is required: 'init ROOT', or '--root DIR' (or set \(StoreRoot.environmentVariable))")
        }
        self.root = path
        let chosen: [Records?] = [
            try arguments.value(Self.recordsURLVariableOption).map { .urlVariable($0) },
            try arguments.value(Self.recordsURLOption).map { .url($0) },
            arguments.isSet(Self.recordsSQLiteFlag) ? .sqlite : nil,
        ]
        guard chosen.compactMap({ $0 }).count <= 1 else {
            throw UsageError("give one of --records-url-variable, --records-url and --records-sqlite")
        }
        records = chosen.compactMap { $0 }.first
        let filesChosen: [Files?] = [
            try arguments.value(Self.filesURLOption).map { .url($0) },
            try arguments.value(Self.filesURLVariableOption).map { .urlVariable($0) },
        ]
        guard filesChosen.compactMap({ $0 }).count <= 1 else {
            throw UsageError("give one of --files-url and --files-url-variable")
        }
        files = filesChosen.compactMap { $0 }.first
        shared = arguments.isSet(Self.sharedFlag)
        valueLimit = try arguments.value(Self.valueLimitOption)
        suiteBudget = try arguments.value(Self.suiteBudgetOption)
        allowedSensitiveKeys = try arguments.values(Self.allowSensitiveKeyOption)
        minimumOS = try arguments.value(Self.minimumOSOption)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let paths = try StoragePaths(root: root)
        var configuration = try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        if shared, !configuration.catalog.isShared, let held = Self.localData(in: paths) {
            throw StorageError(
                .conflict,
                "the root holds a one-machine store's data (\(held)); declared shared, the store would leave it "
                    + "behind under this root", path: paths.root,
                recovery: "Initialize a new root with --shared; to bring this store's keys along, back it up (strata "
                    + "backup) and put them into the shared store, or restore it elsewhere")
        }
        apply(to: &configuration)
        if configuration.catalog.isShared {
            // Where the tiers are is checked now (the locations themselves when the store opens): a shared store
            // that would keep a tier under this root is never written.
            guard configuration.records.backend == "postgres" else {
                throw UsageError(
                    "a shared store keeps its records and catalog on PostgreSQL: give --records-url-variable NAME "
                        + "(or --records-url URL)")
            }
            guard configuration.files.backend == "s3" else {
                throw UsageError(
                    "a shared store keeps its files on S3: give --files-url s3://bucket/prefix (or "
                        + "--files-url-variable NAME)")
            }
        }
        try configuration.write(to: paths)
        let written = "\(paths.root)/\(StoreConfiguration.fileName)"
        if json {
            JSONOutput.print(.object(["root": .string(paths.root), "configuration": .string(written)]))
        } else {
            print("wrote \(written)")
        }
        if case .url(let url) = records, PostgresConfiguration(connectionString: url).redactedConnectionString != url {
            CommandLineTool.printError(
                "strata: note: the URL's password is written into \(StoreConfiguration.fileName); "
                    + "--records-url-variable keeps it out")
        }
    }

    /// What a one-machine store keeps under `paths` that a shared store would not see: its catalog, a suite, a
    /// keyring, a SQLite record store, a file; `nil` when there is none.
    static func localData(in paths: StoragePaths) -> String? {
        let manager = FileManager.default
        let entries = { (folder: String) in
            ((try? manager.contentsOfDirectory(atPath: paths.root + "/" + folder)) ?? []).filter { !$0.hasPrefix(".") }
        }
        if !entries("catalog").isEmpty { return "a catalog" }
        if entries("defaults").contains(where: { $0.hasSuffix(".plist") }) { return "a defaults suite" }
        if !entries("secrets").isEmpty { return "a keyring" }
        if entries("records").contains(where: { $0.hasSuffix(".sqlite") }) { return "a SQLite record store" }
        if !entries("files").isEmpty { return "files" }
        return nil
    }

    /// Applies the options to `configuration`.
    func apply(to configuration: inout StoreConfiguration) {
        switch records {
        case .urlVariable(let variable)?:
            configuration.records.backend = "postgres"
            configuration.records.urlVariable = variable
            configuration.records.url = nil
        case .url(let url)?:
            configuration.records.backend = "postgres"
            configuration.records.url = url
            configuration.records.urlVariable = nil
        case .sqlite?:
            configuration.records = StoreConfiguration.Records()
        case nil:
            break
        }
        switch files {
        case .urlVariable(let variable)?:
            configuration.files.backend = "s3"
            configuration.files.urlVariable = variable
            configuration.files.url = nil
        case .url(let url)?:
            configuration.files.backend = "s3"
            configuration.files.url = url
            configuration.files.urlVariable = nil
        case nil:
            break
        }
        if shared {
            configuration.catalog.isShared = true
            configuration.defaults.backend = "postgres"
            configuration.secrets.backend = "postgres"
        }
        if let valueLimit { configuration.selector.defaults.valueLimit = valueLimit }
        if let suiteBudget { configuration.selector.defaults.suiteBudget = suiteBudget }
        for name in allowedSensitiveKeys
        where !configuration.defaults.allowedSensitiveKeys.contains(where: {
            $0.unicodeScalars.elementsEqual(name.unicodeScalars)
        }) {
            configuration.defaults.allowedSensitiveKeys.append(name)
        }
        if let minimumOS { configuration.selector.context.minimumOS = minimumOS }
    }
}
