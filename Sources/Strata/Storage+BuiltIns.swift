extension Storage {
    /// A built-in backend: the tier it serves, its name, and how to open it under a store root.
    struct BuiltIn {
        var tier: Tier
        var name: String
        var factory: BackendRegistry.Factory
    }

    /// Strata's persistent backends. Each tier module adds its entry when it lands.
    static var builtInBackends: [BuiltIn] { [] }
}
