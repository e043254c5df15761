@_exported public import StrataDefaults
@_exported public import StrataFiles
@_exported public import StrataPostgres
@_exported public import StrataRecords
@_exported public import StrataSecrets

extension Storage {
    /// The environment variable the secrets tier reads its key from when ``Storage`` is given none.
    public static let secretsKeyVariable = KeyProvider.environmentVariable

    /// A built-in backend: the tier it serves, its name, and how to open it under a store root.
    struct BuiltIn {
        var tier: Tier
        var name: String
        var factory: BackendRegistry.Factory
    }

    /// Strata's persistent backends. Each tier module adds its entry when it lands.
    static func builtInBackends(secretsKey: KeyProvider?, recordsURL: String? = nil) -> [BuiltIn] {
        var backends = [
            BuiltIn(tier: .defaults, name: "plist") { paths in
                try DefaultsStore(suite: "standard", paths: requirePaths(paths, for: .defaults))
            },
            BuiltIn(tier: .secrets, name: "sodium") { paths in
                guard let key = secretsKey ?? environmentSecretsKey() else {
                    throw StorageError(
                        .locked, "the secrets tier has no key to unlock its keyring", tier: .secrets,
                        recovery: "Pass secretsKey: to Storage, or set \(secretsKeyVariable) to 64 hex characters")
                }
                return try SecretStore(
                    keyring: "default", paths: requirePaths(paths, for: .secrets), unlockingWith: key)
            },
            BuiltIn(tier: .records, name: "sqlite") { paths in
                try RecordStore(name: "main", paths: requirePaths(paths, for: .records))
            },
            BuiltIn(tier: .files, name: "filesystem") { paths in
                try FileStore(paths: requirePaths(paths, for: .files))
            },
        ]
        if let recordsURL, PostgresConfiguration.isPostgresURL(recordsURL) {
            // Registered after SQLite, so it is the active records backend.
            backends.append(
                BuiltIn(tier: .records, name: "postgres") { _ in
                    try PostgresRecordEngine.store(PostgresConfiguration(connectionString: recordsURL))
                })
        }
        return backends
    }

    static func environmentSecretsKey() -> KeyProvider? {
        ProcessInfo.processInfo.environment[secretsKeyVariable].map { _ in .environment(secretsKeyVariable) }
    }

    static func requirePaths(_ paths: StoragePaths?, for tier: Tier) throws -> StoragePaths {
        guard let paths else {
            throw StorageError(
                .invalidArgument, "the \(tier.rawValue) backend needs a store root; the registry has none", tier: tier)
        }
        return paths
    }
}
