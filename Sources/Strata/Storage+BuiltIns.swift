@_exported public import StrataDefaults
@_exported public import StrataDefaultsPostgres
@_exported public import StrataFiles
@_exported public import StrataLocalFiles
@_exported public import StrataPostgres
@_exported public import StrataPostgresClient
@_exported public import StrataRecords
@_exported public import StrataS3
@_exported public import StrataSQLite
@_exported public import StrataSecrets
@_exported public import StrataSecretsPostgres

extension Storage {
    /// The environment variable the secrets tier reads its key from when ``Storage`` is given none.
    public static let secretsKeyVariable = KeyProvider.environmentVariable

    /// A built-in backend: the tier it serves, its name, how to open it under a store root, and the facts it
    /// reports, known without opening it.
    struct BuiltIn {
        var tier: Tier
        var name: String
        var facts: @Sendable (StoragePaths) -> BackendFacts
        var factory: BackendRegistry.Factory
        /// Whether every machine that opens the store reaches the same data through it (a server, not a file under
        /// the root): the only kind a shared store registers.
        var isShared = false
        /// Whether registering it makes it its tier's active backend (those registered later win); `false` for one
        /// that is active only where a configuration names it.
        var isActiveWhenRegistered = true

        /// This backend, marked as one that machines share.
        func shared() -> BuiltIn {
            var shared = self
            shared.isShared = true
            return shared
        }

        /// This backend, active only where a configuration names it.
        func activeWhenNamed() -> BuiltIn {
            var named = self
            named.isActiveWhenRegistered = false
            return named
        }
    }

    /// Strata's persistent backends, one entry per tier, each reporting the changes made through its own API to
    /// `placement` (``/StrataCore/PlacementLedger``). With `rootStores`, the defaults and secrets backends are that
    /// suite and keyring, already open (a `Storage`'s own), instead of stores opened by the factories.
    static func builtInBackends(
        secretsKey: KeyProvider?, recordsURL: String? = nil, filesLocation: S3FilesLocation? = nil,
        configuration: StoreConfiguration = StoreConfiguration(), placement: (any PlacementLedger)? = nil,
        rootStores: RootTierStores? = nil
    ) -> [BuiltIn] {
        let defaults = with(defaultsConfiguration(configuration)) { $0.placement = placement }
        let secrets = with(SecretsConfiguration()) { $0.placement = placement }
        let records = with(RecordsConfiguration()) { $0.placement = placement }
        let files = with(FilesConfiguration()) { $0.placement = placement }
        let (suite, keyring, store) = (
            configuration.defaults.suite, configuration.secrets.keyring, configuration.records.store
        )
        var backends = [
            BuiltIn(
                tier: .defaults, name: "plist",
                facts: { DefaultsStore.facts(suite: suite, paths: $0, configuration: defaults) }
            ) { paths in
                if let rootStores { return rootStores.defaults }
                return try DefaultsStore(
                    suite: suite, paths: requirePaths(paths, for: .defaults), configuration: defaults)
            },
            BuiltIn(tier: .secrets, name: "sodium", facts: { SecretStore.facts(keyring: keyring, paths: $0) }) {
                paths in
                if let rootStores { return try rootStores.unlockedSecrets() }
                let store = try SecretStore(
                    keyring: keyring, paths: requirePaths(paths, for: .secrets), configuration: secrets)
                try store.unlock(with: try secretsKey ?? environmentSecretsKey(for: store))
                return store
            },
            BuiltIn(
                tier: .records, name: "sqlite",
                facts: {
                    SQLiteRecordEngine.facts(
                        path: RecordStore.sqlitePath(name: store, paths: $0), configuration: RecordsConfiguration())
                }
            ) { paths in
                try RecordStore(name: store, paths: requirePaths(paths, for: .records), configuration: records)
            },
            BuiltIn(
                tier: .files, name: "filesystem",
                facts: { PosixFileEngine.facts(paths: $0, configuration: FilesConfiguration()) }
            ) { paths in
                try FileStore(paths: requirePaths(paths, for: .files), configuration: files)
            },
        ]
        if let recordsURL, PostgresConfiguration.isPostgresURL(recordsURL) {
            // Registered after SQLite, so it is the active records backend.
            backends.append(
                BuiltIn(
                    tier: .records, name: "postgres",
                    facts: { _ in PostgresRecordEngine.facts(PostgresConfiguration(connectionString: recordsURL)) }
                ) { _ in
                    try PostgresRecordEngine.store(
                        PostgresConfiguration(connectionString: recordsURL),
                        placement: TierPlacement(.records, store: store, ledger: placement))
                }.shared())
            // The defaults tier on the same server and schema: registered, and active where the configuration
            // names it (a shared store's `[defaults] backend = postgres`).
            let limits = configuration.selector.defaults
            let allowed = Set(configuration.defaults.allowedSensitiveKeys)
            backends.append(
                BuiltIn(
                    tier: .defaults, name: "postgres",
                    facts: { _ in
                        PostgresDefaults.facts(
                            suite: suite, configuration: PostgresConfiguration(connectionString: recordsURL))
                    }
                ) { _ in
                    try PostgresDefaults(
                        suite: suite, configuration: PostgresConfiguration(connectionString: recordsURL),
                        limits: limits, allowedSensitiveKeys: allowed, placement: placement)
                }.shared().activeWhenNamed())
            // The secrets tier on the same server and schema, unlocked with the store's key: active where the
            // configuration names it (a shared store's `[secrets] backend = postgres`).
            backends.append(
                BuiltIn(
                    tier: .secrets, name: "postgres",
                    facts: { _ in
                        PostgresSecrets.facts(
                            keyring: keyring, configuration: PostgresConfiguration(connectionString: recordsURL))
                    }
                ) { paths in
                    // The highest manifest this machine has seen, kept beside `strata.conf` (see `anchorPath`).
                    let server = PostgresConfiguration(connectionString: recordsURL)
                    let anchor = PostgresSecrets.anchorFileName(keyring: keyring, configuration: server)
                    let store = try PostgresSecrets(
                        keyring: keyring, configuration: server, anchorPath: paths.map { $0.root + "/" + anchor },
                        placement: placement)
                    guard let key = secretsKey ?? environmentSecretsKey() else {
                        var error = StorageError(
                            .locked, "the secrets tier has no key to unlock its keyring", tier: .secrets,
                            path: store.location,
                            recovery: "Pass secretsKey: to Storage, or set \(secretsKeyVariable) to the 64 hex "
                                + "characters every machine of the store uses")
                        error.remedy = .giveSecretsKey
                        throw error
                    }
                    try store.unlock(with: key)
                    return store
                }.shared().activeWhenNamed())
        }
        if let filesLocation {
            // Registered after the filesystem, so it is the active files backend.
            backends.append(
                s3Backend(filesLocation, secretsKey: secretsKey, configuration: configuration, files: files))
        }
        // A shared store uses only what every machine reaches: a tier without such an engine has no backend.
        if configuration.catalog.isShared { backends.removeAll { !$0.isShared } }
        return backends
    }

    /// The facts of the backend a configuration makes active for each tier, known without opening anything: what
    /// `strata inspect` reports of a store it must not change. A tier whose configured backend is not built in is
    /// left out.
    /// - Throws: ``/StrataCore/StorageError`` for a records tier on PostgreSQL without a connection string (see
    ///   ``/StrataCore/StoreConfiguration/recordsURL(environment:)``).
    public static func configuredBackendFacts(
        _ configuration: StoreConfiguration, paths: StoragePaths,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> [BackendFacts] {
        var configuration = configuration
        let recordsURL = try resolveRecords(nil, &configuration, environment: environment)
        let filesLocation = try resolveFiles(nil, &configuration, environment: environment)
        let builtIns = builtInBackends(
            secretsKey: nil, recordsURL: recordsURL, filesLocation: filesLocation, configuration: configuration)
        return Tier.allCases.compactMap { tier in
            builtIns.last { $0.tier == tier && $0.name == configuration.backend(for: tier) }?.facts(paths)
        }
    }

    /// `value` changed by `change`: a configured copy that closures may capture.
    private static func with<Value>(_ value: Value, _ change: (inout Value) -> Void) -> Value {
        var copy = value
        change(&copy)
        return copy
    }

    /// `STRATA_SECRETS_KEY` as the key provider, or `nil` when it is unset or empty (an empty variable is no key).
    static func environmentSecretsKey() -> KeyProvider? {
        guard let value = ProcessInfo.processInfo.environment[secretsKeyVariable], !value.isEmpty else { return nil }
        return .environment(secretsKeyVariable)
    }

    /// The key from ``secretsKeyVariable`` for a keyring given no key, when that keyring takes one: the keyring
    /// decides, not the environment. A passphrase-protected keyring is never offered the variable (an unrelated key
    /// there must not stand in for its passphrase, nor fail what needs no key, such as a backup of its sealed files).
    /// - Throws: ``/StrataCore/StorageError`` `.locked` when there is no key for it: the variable is unset, or the
    ///   keyring is protected by a passphrase (its error says so).
    static func environmentSecretsKey(for store: SecretStore) throws -> KeyProvider {
        let isPassphraseProtected = try store.isPassphraseProtected == true
        let variable = environmentSecretsKey()
        guard !isPassphraseProtected, let key = variable else {
            let aside = variable == nil ? "" : " (\(secretsKeyVariable) holds a key, not its passphrase)"
            var error = StorageError(
                .locked,
                isPassphraseProtected
                    ? "the secrets tier's keyring is protected by a passphrase, and it was given none" + aside
                    : "the secrets tier has no key to unlock its keyring", tier: .secrets, path: store.directory,
                recovery: isPassphraseProtected
                    ? "Pass secretsKey: .passphrase(...) to Storage"
                    : "Pass secretsKey: to Storage, or set \(secretsKeyVariable) to 64 hex characters")
            error.remedy = .giveSecretsKey
            throw error
        }
        return key
    }

    static func requirePaths(_ paths: StoragePaths?, for tier: Tier) throws -> StoragePaths {
        guard let paths else {
            throw StorageError(
                .invalidArgument, "the \(tier.rawValue) backend needs a store root; the registry has none", tier: tier)
        }
        return paths
    }
}

extension Storage {
    /// The configured keyring of the built-in secrets backend the configuration names, opened without its key (what a
    /// capture copies sealed when this process has no key): the keyring folder under the root, or the keyring on the
    /// server the store opened its records on, for a shared store's `postgres` backend. `nil` for a backend that is
    /// not built in.
    func lockedKeyring() throws -> (any StorageBackend)? {
        let keyring = configuration.secrets.keyring
        switch configuration.secrets.backend {
        case "sodium":
            return try SecretStore(keyring: keyring, paths: paths)
        case "postgres":
            guard let recordsURL else { return nil }
            return try PostgresSecrets(
                keyring: keyring, configuration: PostgresConfiguration(connectionString: recordsURL))
        default:
            return nil
        }
    }
}
