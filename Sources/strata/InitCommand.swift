import Foundation
import Strata

/// `strata init ROOT`: writes (or updates) the store's configuration file, `ROOT/strata.conf`.
enum InitCommand {
    static let spec = CommandSpec(
        name: "init",
        summary: "Write the store's configuration (ROOT/strata.conf): each tier's backend, the limits, allowed names.",
        usage:
            "init [ROOT] [--root DIR] [--records-url-variable NAME | --records-url URL | --records-sqlite] [--defaults-value-limit SIZE] "
            + "[--defaults-suite-budget SIZE] [--allow-sensitive-key NAME]... [--min-os OS]",
        options: [
            StoreRoot.option,
            .value(
                "--records-url-variable", "NAME",
                "Records on PostgreSQL, the connection string read from the environment variable NAME when the store "
                    + "opens (STRATA_RECORDS_URL): the file holds no password."),
            .value(
                "--records-url", "URL",
                "Records on PostgreSQL at URL, written into the file as given (a password in it is stored too)."),
            .flag("--records-sqlite", "Records in the SQLite file under the root (the default)."),
            .value("--defaults-value-limit", "SIZE", "The largest preference in defaults (64KiB); larger go to files."),
            .value("--defaults-suite-budget", "SIZE", "The largest a defaults suite may grow (1MiB)."),
            .repeatable(
                "--allow-sensitive-key", "NAME",
                "A key name allowed in defaults although it looks like a credential. Repeatable."),
            .value("--min-os", "OS", "The app's minimum OS (iOS17 reports records as SwiftData)."),
        ],
        details:
            "Every strata verb and Storage(root:) read the file; explicit options and arguments win over it. An existing "
            + "file is kept and the options given are applied to it. The format is in Documentation/Storage.md.")

    static func run(_ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        guard let root = try StoreRoot.path(parsed, positional: try parsed.optionalPositional("ROOT")) else {
            throw UsageError(
                "the store root is required: 'init ROOT', or '--root DIR' (or set \(StoreRoot.environmentVariable))")
        }
        var scratch = StoreConfiguration()
        try apply(parsed, to: &scratch)  // Every option is checked before anything is created.
        let paths = try StoragePaths(root: root)
        var configuration = try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        try apply(parsed, to: &configuration)
        try configuration.write(to: paths)
        print("wrote \(paths.root)/\(StoreConfiguration.fileName)")
        if let url = parsed.value("--records-url"),
            PostgresConfiguration(connectionString: url).redactedConnectionString != url
        {
            CommandLineTool.printError(
                "strata: note: the URL's password is written into \(StoreConfiguration.fileName); "
                    + "--records-url-variable keeps it out")
        }
    }

    /// Applies the options to `configuration`.
    /// - Throws: ``UsageError`` for an option that cannot be used.
    static func apply(_ parsed: ParsedArguments, to configuration: inout StoreConfiguration) throws {
        let recordsOptions = ["--records-url-variable", "--records-url"].filter { parsed.value($0) != nil }
        guard recordsOptions.count + (parsed.has("--records-sqlite") ? 1 : 0) <= 1 else {
            throw UsageError("give one of --records-url-variable, --records-url and --records-sqlite")
        }
        if let variable = parsed.value("--records-url-variable") {
            configuration.records.backend = "postgres"
            configuration.records.urlVariable = variable
            configuration.records.url = nil
        }
        if let url = parsed.value("--records-url") {
            guard PostgresConfiguration.isPostgresURL(url) else {
                throw UsageError("'--records-url' takes a postgresql:// connection string")
            }
            configuration.records.backend = "postgres"
            configuration.records.url = url
            configuration.records.urlVariable = nil
        }
        if parsed.has("--records-sqlite") {
            configuration.records = StoreConfiguration.Records()
        }
        if let size = parsed.value("--defaults-value-limit") {
            configuration.selector.defaults.valueLimit = try positiveSize(size)
        }
        if let size = parsed.value("--defaults-suite-budget") {
            configuration.selector.defaults.suiteBudget = try positiveSize(size)
        }
        for name in parsed.allValues("--allow-sensitive-key")
        where !configuration.defaults.allowedSensitiveKeys.contains(where: {
            $0.unicodeScalars.elementsEqual(name.unicodeScalars)
        }) {
            configuration.defaults.allowedSensitiveKeys.append(name)
        }
        if let os = try SelectCommand.minimumOS(parsed) { configuration.selector.context.minimumOS = os }
    }

    static func positiveSize(_ text: String) throws -> Int {
        let size = try SelectCommand.parseSize(text)
        guard size > 0 else { throw UsageError("a limit must be more than 0 bytes") }
        return size
    }
}
