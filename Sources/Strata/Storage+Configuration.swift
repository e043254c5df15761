import StrataCatalog
import StrataCatalogPostgres

// The store configuration file as `Storage` applies it: which backend is active for each tier, and with which
// settings. Explicit arguments to `Storage(root:)` win over the file; the file wins over the environment.
extension Storage {
    /// The names of the backends Strata ships, by tier: what a store configuration may name.
    public static let builtInBackendNames: [Tier: [String]] = [
        .defaults: ["plist", "postgres"], .secrets: ["sodium"], .records: ["sqlite", "postgres"],
        .files: ["filesystem", "s3"],
    ]

    /// The configuration a store opens with: `explicit` when given, else the root's `strata.conf`, else the
    /// built-in one; an explicit selector replaces the file's thresholds (and with them the defaults tier's limits,
    /// which always follow the selector's).
    static func effectiveConfiguration(
        _ explicit: StoreConfiguration?, selector: StorageSelector?, paths: StoragePaths
    ) throws -> StoreConfiguration {
        var configuration = try explicit ?? StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        if let selector { configuration.selector = selector.configuration }
        return configuration
    }

    /// Resolves where the records tier lives and makes `configuration` say so: the explicit argument (a
    /// `postgresql://` string is PostgreSQL, anything else SQLite), else the configuration (a file that names the
    /// records backend decides), else `STRATA_RECORDS_URL`.
    /// - Returns: The connection string for the PostgreSQL backend, or `nil` for SQLite.
    static func resolveRecords(
        _ explicit: String?, _ configuration: inout StoreConfiguration, environment: [String: String]
    ) throws -> String? {
        let url: String?
        if let explicit {
            url = explicit
        } else if configuration.records.backend != "sqlite" || configuration.lines["records.backend"] != nil {
            return try configuration.recordsURL(environment: environment)
        } else {
            url = environment[PostgresConfiguration.urlVariable]
        }
        guard let url, PostgresConfiguration.isPostgresURL(url) else {
            configuration.records.backend = "sqlite"
            return nil
        }
        configuration.records.backend = "postgres"
        return url
    }

    /// The PostgreSQL connection string of a store opened with `configuration` and no explicit records URL, or
    /// `nil` when its records stay in SQLite under the root.
    /// - Throws: ``/StrataCore/StorageError`` (naming the configuration file and line) for a `postgres` records tier
    ///   without a connection string.
    public static func recordsURL(_ configuration: StoreConfiguration, environment: [String: String]) throws
        -> String?
    {
        var configuration = configuration
        return try resolveRecords(nil, &configuration, environment: environment)
    }

    /// The catalog a store opened with `configuration` keeps: on the records' PostgreSQL server, in the records'
    /// schema, for a shared store (``/StrataCore/StoreConfiguration/Catalog/isShared``; `recordsURL` is then known to
    /// be set); else the file catalog under the root.
    /// A shared store's catalog is bound to its files location, suite and keyring (the first machine records them,
    /// the others must name the same). Opening a store that is not shared contacts no server.
    static func catalog(
        of configuration: StoreConfiguration, paths: StoragePaths, recordsURL: String?, filesURL: String?
    ) throws -> any CatalogEngine {
        if configuration.catalog.isShared, let recordsURL {
            let catalog = try PostgresCatalog(PostgresConfiguration(connectionString: recordsURL))
            if let filesURL { try catalog.bind(.filesLocation, to: filesURL) }
            try catalog.bind(.defaultsSuite, to: configuration.defaults.suite)
            try catalog.bind(.secretsKeyring, to: configuration.secrets.keyring)
            return catalog
        }
        return try StorageCatalog(root: paths.root)
    }

    /// Makes the backend the configuration names the active one of each tier.
    /// - Throws: ``/StrataCore/StorageError`` `.noBackend`, naming the configuration file and line, for a name nothing
    ///   is registered under.
    static func activateConfiguredBackends(_ configuration: StoreConfiguration, in registry: BackendRegistry) throws {
        for tier in Tier.allCases {
            // A shared store leaves a tier without a shared engine without a backend (see `unsharedTierError`).
            if configuration.catalog.isShared, !registry.registrations.contains(where: { $0.tier == tier }) {
                continue
            }
            let name = configuration.backend(for: tier)
            guard registry.registrations.contains(where: { $0.tier == tier && $0.name == name }) else {
                let known = registry.registrations.filter { $0.tier == tier }.map(\.name).sorted()
                var error = configuration.error(
                    .noBackend,
                    configuration.catalog.isShared
                        ? "the store is shared, and the \(tier.rawValue) backend '\(name)' is not one that machines "
                            + "share"
                        : "the configuration names the \(tier.rawValue) backend '\(name)', which is not registered",
                    setting: tier.rawValue + ".backend",
                    recovery: "Name one of: \(known.joined(separator: ", ")); a custom backend is made active in code "
                        + "with storage.registry.register(.\(tier.rawValue), name:factory:)")
                error.tier = tier
                throw error
            }
            try registry.activate(tier, name: name)
        }
    }

    /// What the defaults tier is opened with: the selector's limits (one source) and the allowed key names.
    public static func defaultsConfiguration(_ configuration: StoreConfiguration) -> DefaultsConfiguration {
        var defaults = DefaultsConfiguration()
        defaults.limits = configuration.selector.defaults
        defaults.allowedSensitiveKeys = Set(configuration.defaults.allowedSensitiveKeys)
        return defaults
    }

    /// Fills in the facts of the selection's tier's active backend: its name, concurrency guarantee and durability,
    /// known without opening a built-in backend (no server is contacted, no keyring unlocked). A tier whose backend
    /// must be opened to answer and cannot be says so instead. In place: a selection is a large value to copy.
    func addBackendFacts(to selection: inout Selection) {
        if let open = registry.openedIfOpen(for: selection.tier) { return addFacts(of: open, to: &selection) }
        do {
            let facts = try registry.facts(for: selection.tier)
            selection.backend = facts.name
            selection.concurrencyGuarantee = facts.concurrencyGuarantee
            selection.durability = facts.durability
        } catch let error as StorageError {
            selection.concurrencyGuarantee =
                "unknown: the \(selection.tier.rawValue) backend is not open (\(error.code))"
        } catch {
            selection.concurrencyGuarantee = "unknown: the \(selection.tier.rawValue) backend is not open"
        }
    }

    /// Fills in the facts of `open`, the selection's tier's active backend, read in its box.
    func addFacts(of open: BackendRegistry.Opened, to selection: inout Selection) {
        selection.backend = open.facts.name
        selection.concurrencyGuarantee = open.facts.concurrencyGuarantee
        selection.durability = open.facts.durability
    }
}
