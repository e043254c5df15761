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
}
