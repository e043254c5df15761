@_exported public import StrataDefaults

extension Storage {
    /// A built-in backend: the tier it serves, its name, and how to open it under a store root.
    struct BuiltIn {
        var tier: Tier
        var name: String
        var factory: BackendRegistry.Factory
    }

    /// Strata's persistent backends. Each tier module adds its entry when it lands.
    static var builtInBackends: [BuiltIn] {
        [
            BuiltIn(tier: .defaults, name: "plist") { paths in
                try DefaultsStore(suite: "standard", paths: requirePaths(paths, for: .defaults))
            }
        ]
    }

    static func requirePaths(_ paths: StoragePaths?, for tier: Tier) throws -> StoragePaths {
        guard let paths else {
            throw StorageError(
                .invalidArgument, "the \(tier.rawValue) backend needs a store root; the registry has none", tier: tier)
        }
        return paths
    }
}
