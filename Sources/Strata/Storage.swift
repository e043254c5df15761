@_exported public import Foundation
package import StrataCatalog
@_exported public import StrataCore
import Synchronization

/// The front door: one store root, the built-in backends registered, and every value routed to its tier by the
/// ``/StrataCore/StorageSelector``.
///
/// ```swift
/// let storage = try Storage(root: "/var/lib/myapp")
/// let selection = try storage.put(Data("s3cr3t".utf8), for: "api/token",
///                                 as: DataDescriptor(kind: .credential, estimatedSize: 6))
/// print(selection.tier)   // secrets
/// let token = try storage.data(for: "api/token")   // the catalog knows where the key went
/// ```
///
/// Apps replace a tier's backend through ``registry`` (an in-memory one for tests, a custom one), and the
/// selector's thresholds through ``selector``.
public final class Storage: Sendable {
    /// The store's layout on disk.
    public let paths: StoragePaths
    /// Where backends are registered; the built-ins are registered by the initializer.
    public let registry: BackendRegistry
    /// The decision table applied to every value.
    public let selector: StorageSelector
    /// Where every key put through this store lives: the file catalog under the root (`<root>/catalog`), or, in a
    /// shared store, the catalog on the records' PostgreSQL server.
    package let catalog: any CatalogEngine
    /// The configuration the store opened with: the root's `strata.conf` (or the built-in one), with the
    /// initializer's explicit arguments applied.
    public let configuration: StoreConfiguration
    /// The records' PostgreSQL connection string the store opened with; `nil` when its records are in SQLite.
    let recordsURL: String?
    /// The interrupted moves this instance settled and ``verifyCatalog()`` has not reported yet.
    let settledMoves = Mutex<[SettledMove]>([])
    /// The stale entries this instance repaired and ``verifyCatalog()`` has not reported yet.
    let repairedEntries = Mutex<[RepairedEntry]>([])
    /// The catalog as the ledger of the tier stores on this root: what keeps it true when a tier's own API writes.
    let placement: CatalogPlacement
    /// The root's preference suite and keyring, open while the store is: what ``defaults`` and ``secrets`` return.
    let rootStores: RootTierStores
    /// The thread that delivers this instance's observations (``observe(_:interval:)``).
    package let changeWatcher: ChangeWatcher

    /// Opens (creating if needed) a store.
    ///
    /// The store's configuration file (`<root>/strata.conf`, written by `strata init` or
    /// ``/StrataCore/StoreConfiguration/write(to:)``) names each tier's active backend and its settings; explicit
    /// arguments win over it.
    /// - Parameters:
    ///   - root: The root folder, created with mode 0700.
    ///   - selector: The decision table. The default (`nil`) is the configuration's thresholds, else the standard
    ///     table (``/StrataCore/SelectionRule/standard``) with a 64 KiB defaults value limit. The defaults tier is
    ///     opened with the selector's ``/StrataCore/SelectorConfiguration/defaults`` limits, so the two always agree.
    ///   - secretsKey: What unlocks the secrets tier's keyring. The default (`nil`) reads the key from the
    ///     environment variable `STRATA_SECRETS_KEY` when it is set; without either, the secrets tier reports
    ///     `.locked` when first used.
    ///   - registerBuiltIns: Whether to register Strata's own backends. The default is `true`.
    ///   - recordsURL: Where the records tier lives. A `postgresql://` (or `postgres://`) connection string makes
    ///     the PostgreSQL engine the active records backend (`strata_schema=` in its query picks the schema);
    ///     anything else, or `nil` with no `STRATA_RECORDS_URL` in the environment, keeps the SQLite file under
    ///     the root. The default (`nil`) is the configuration's, else `STRATA_RECORDS_URL`.
    ///   - filesURL: Where the files tier lives. An `s3://bucket/prefix` URL makes the S3 engine the active files
    ///     backend (endpoint and region from the configuration's `[files]`, else `AWS_ENDPOINT_URL` and
    ///     `AWS_REGION`; credentials from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, or the keyring when the
    ///     configuration says `credentials = secrets`, read when the tier is first used); `""` keeps the folder
    ///     under the root. The default (`nil`) is the configuration's, else ``filesURLVariable``.
    ///   - configuration: The store configuration. The default (`nil`) reads the root's `strata.conf`.
    /// - Throws: ``/StrataCore/StorageError`` when the root cannot be created or is not a folder; `.corrupt` or
    ///   `.unsupportedVersion` (with path and line) for a bad or newer configuration file, `.noBackend` for a backend
    ///   it names that is not registered, `.invalidArgument` for a malformed files location (the part in
    ///   ``/StrataCore/StorageError/attribute``).
    public convenience init(
        root: String, selector: StorageSelector? = nil, secretsKey: KeyProvider? = nil,
        registerBuiltIns: Bool = true, recordsURL: String? = nil, filesURL: String? = nil,
        configuration: StoreConfiguration? = nil
    ) throws {
        try self.init(
            root: root, selector: selector, secretsKey: secretsKey, registerBuiltIns: registerBuiltIns,
            recordsURL: recordsURL, filesURL: filesURL, configuration: configuration, catalog: nil)
    }

    /// Opens a store as ``init(root:selector:secretsKey:registerBuiltIns:recordsURL:filesURL:configuration:)``
    /// does, its catalog kept by `catalog`: `nil` is the file catalog under the root; a catalog on a server
    /// (``/StrataCatalogPostgres/PostgresCatalog``) is one several machines share.
    package init(
        root: String, selector: StorageSelector? = nil, secretsKey: KeyProvider? = nil,
        registerBuiltIns: Bool = true, recordsURL: String? = nil, filesURL: String? = nil,
        configuration: StoreConfiguration? = nil, catalog: (any CatalogEngine)?
    ) throws {
        self.paths = try StoragePaths(root: root)
        var configuration = try Self.effectiveConfiguration(configuration, selector: selector, paths: paths)
        let environment = ProcessInfo.processInfo.environment
        let recordsURL = try Self.resolveRecords(recordsURL, &configuration, environment: environment)
        self.recordsURL = recordsURL
        let filesLocation = try Self.resolveFiles(filesURL, &configuration, environment: environment)
        self.configuration = configuration
        self.registry = BackendRegistry(paths: paths)
        self.selector = selector ?? StorageSelector(configuration: configuration.selector)
        try configuration.checkShared(recordsURL: recordsURL, filesURL: filesLocation?.url)
        self.catalog =
            try catalog
            ?? Self.catalog(
                of: configuration, paths: paths, recordsURL: recordsURL, filesURL: filesLocation?.canonicalURL)
        // In a shared store the root's own suite and keyring are this machine's: writes through them are refused.
        // The tiers' shared engines report to a ledger of the same catalog that refuses nothing.
        let isShared = configuration.catalog.isShared
        self.placement = CatalogPlacement(
            catalog: self.catalog, configuration: configuration, machineLocal: isShared ? RootTierStores.tiers : [])
        let enginePlacement =
            isShared ? CatalogPlacement(catalog: self.catalog, configuration: configuration) : placement
        self.changeWatcher = ChangeWatcher(catalog: self.catalog)
        // Tier stores this process opens on the root by themselves report to this catalog while it lives.
        try placement.register(root: paths.openRoot(), path: paths.root)
        self.rootStores = try RootTierStores(
            paths: paths, configuration: configuration, secretsKey: secretsKey, placement: placement)
        if registerBuiltIns {
            Self.register(
                Self.builtInBackends(
                    secretsKey: secretsKey, recordsURL: recordsURL, filesLocation: filesLocation,
                    configuration: configuration, placement: enginePlacement, rootStores: rootStores),
                in: registry)
            try Self.activateConfiguredBackends(configuration, in: registry)
        }
        // Finish or undo the moves a crashed process left; what cannot be settled now (a locked tier) is
        // settled by the key's next write, and reported by `verify`.
        _ = try? settleInterruptedMoves()
    }

    deinit {
        // Observations end with the store they observe.
        changeWatcher.removeAll()
    }

    /// Opens the default store of an app, under `$XDG_DATA_HOME/<appID>`.
    public convenience init(
        appID: String, selector: StorageSelector? = nil, secretsKey: KeyProvider? = nil
    ) throws {
        try self.init(
            root: StoragePaths.defaultRoot(appID: appID, environment: ProcessInfo.processInfo.environment),
            selector: selector, secretsKey: secretsKey)
    }

    /// Registers every persistent backend Strata ships into `registry`.
    ///
    /// One backend per tier: plist suites, libsodium keyrings, SQLite (or PostgreSQL), the file store. A tier without a
    /// registered backend reports ``/StrataCore/StorageError/Code/noBackend`` rather than pretending to store anything.
    /// With a PostgreSQL `recordsURL`, the records tier's active backend is `postgres` (the SQLite one stays registered
    /// as `sqlite`).
    /// - Parameters:
    ///   - registry: Where the backends are registered, each made the active one of its tier.
    ///   - secretsKey: What unlocks the secrets tier's keyring. The default (`nil`) reads `STRATA_SECRETS_KEY`.
    ///   - recordsURL: A `postgresql://` connection string puts the records tier on PostgreSQL. The default
    ///     (`nil`) keeps it in SQLite under the root.
    ///   - filesLocation: An S3 location puts the files tier on S3 (its active backend is `s3`; the folder under the
    ///     root stays registered as `filesystem`). The default (`nil`) keeps it under the root.
    ///   - configuration: The suite, keyring, record store and defaults limits the backends open with.
    ///     The default is the built-in configuration.
    ///   - placement: The catalog the tier stores report the changes made through their own APIs to (see
    ///     ``/StrataCore/PlacementLedger``). The default (`nil`) is the catalog of a `Storage` this process has open
    ///     on the registry's root, found when a tier store changes a key.
    public static func registerBuiltInBackends(
        in registry: BackendRegistry, secretsKey: KeyProvider? = nil, recordsURL: String? = nil,
        filesLocation: S3FilesLocation? = nil, configuration: StoreConfiguration = StoreConfiguration(),
        placement: (any PlacementLedger)? = nil
    ) {
        register(
            builtInBackends(
                secretsKey: secretsKey, recordsURL: recordsURL, filesLocation: filesLocation,
                configuration: configuration, placement: placement),
            in: registry)
    }

    /// Registers `builtIns` into `registry`, each made the active backend of its tier.
    private static func register(_ builtIns: [BuiltIn], in registry: BackendRegistry) {
        for registration in builtIns {
            registry.register(
                registration.tier, name: registration.name, makeActive: registration.isActiveWhenRegistered,
                facts: registry.paths.map(registration.facts),
                factory: registration.factory)
        }
    }

    /// The catalog of the store at `paths` as the ledger its tier stores report to, registered for the root (see
    /// ``/StrataCore/PlacementLedger``), for a tool that changes a store through tier stores it opens itself (the
    /// `strata` tier verbs); `nil` when the store has no catalog. The caller keeps it while it writes.
    /// - Throws: ``/StrataCore/StorageError`` when the catalog or the configuration cannot be read.
    package static func catalogLedger(for paths: StoragePaths) throws -> (any PlacementLedger)? {
        var configuration = try StoreConfiguration.read(from: paths) ?? StoreConfiguration()
        guard configuration.catalog.isShared else { return try CatalogPlacement.ledger(for: paths) }
        let environment = ProcessInfo.processInfo.environment
        let recordsURL = try resolveRecords(nil, &configuration, environment: environment)
        let filesLocation = try resolveFiles(nil, &configuration, environment: environment)
        try configuration.checkShared(recordsURL: recordsURL, filesURL: filesLocation?.url)
        let ledger = CatalogPlacement(
            catalog: try catalog(
                of: configuration, paths: paths, recordsURL: recordsURL, filesURL: filesLocation?.canonicalURL),
            configuration: configuration, machineLocal: RootTierStores.tiers)
        try ledger.register(root: paths.openRoot(), path: paths.root)
        return ledger
    }

    /// Decides where a value belongs, without storing it.
    /// - Returns: The selector's choice, with the facts of that tier's active backend (its name, concurrency
    ///   guarantee and durability, as the backend reports them).
    public func select(_ descriptor: DataDescriptor) -> Selection {
        var selection = selector.select(descriptor)
        addBackendFacts(to: &selection)
        return selection
    }

    /// The active backend of a tier.
    /// - Throws: ``/StrataCore/StorageError`` `.noBackend` when the tier has none.
    public func backend(for tier: Tier) throws -> any StorageBackend {
        try registry.backend(for: tier)
    }

    func backend(for tier: Tier, key: String) throws -> any StorageBackend {
        try opened(tier, key: key).backend
    }

    /// The active backend of `tier` in the registry's box (call it there: copying it out costs more than the
    /// lookup), an error naming `key` when there is none.
    package func opened(_ tier: Tier, key: String) throws -> BackendRegistry.Opened {
        do {
            return try registry.opened(for: tier)
        } catch let error as StorageError {
            if error.code == .noBackend, configuration.catalog.isShared,
                !registry.registrations.contains(where: { $0.tier == tier })
            {
                throw configuration.unsharedTierError(tier, key: key)
            }
            throw error.attributed(tier: tier, key: key)
        }
    }
}
