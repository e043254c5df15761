/// One of the four storage tiers of the decision table.
public enum Tier: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Preferences and light configuration (Apple: `UserDefaults`).
    case defaults
    /// Tokens, keys, passwords and other credentials (Apple: Keychain).
    case secrets
    /// Structured and relational data, offline caches (Apple: CoreData / SwiftData).
    case records
    /// Files, images and exported documents of any size (Apple: `FileManager`).
    case files

    public var description: String { rawValue }

    /// The folder under the store root that holds this tier's data.
    public var directoryName: String { rawValue }

    /// What Strata's built-in backend of this tier guarantees about concurrent use, in one sentence.
    ///
    /// A backend reports its own (``StorageBackend/concurrencyGuarantee``): PostgreSQL's is not SQLite's.
    @available(*, deprecated, message: "Ask the tier's active backend: storage.backend(for: tier).concurrencyGuarantee")
    public var concurrencyGuarantee: String {
        switch self {
        case .defaults:
            return "any thread, any process: reads from memory, writes merged under the suite's file lock"
        case .secrets:
            return "any thread, any process: items replaced atomically under the keyring's file lock"
        case .records:
            return "any thread, any process: as the active records backend reports it"
        case .files:
            return "any thread, any process: per-file locks, readers share, writers exclude, atomic replace"
        }
    }
}
