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

    /// What Strata guarantees about concurrent use of this tier, in one sentence.
    ///
    /// Every tier is safe from many threads and from several processes at once, which is stronger than the
    /// thread-safety column of Apple's table.
    public var concurrencyGuarantee: String {
        switch self {
        case .defaults:
            return "any thread, any process: reads from memory, writes merged under the suite's file lock"
        case .secrets:
            return "any thread, any process: items replaced atomically under the keyring's file lock"
        case .records:
            return "any thread, any process: concurrent readers, one writer, SQLite locking with a busy timeout"
        case .files:
            return "any thread, any process: per-file locks, readers share, writers exclude, atomic replace"
        }
    }
}
