// The app's one preferences wrapper, built on keys generated from defaults-keys.json by DefaultsKeysPlugin.
public import StrataDefaults

/// Typed access to the sample app's preferences.
public struct Preferences: Sendable {
    public let store: DefaultsStore

    public init(store: DefaultsStore) { self.store = store }

    /// Whether onboarding ran; `nil` when the user never answered.
    public var hasCompletedOnboarding: Bool? { try? store.value(for: .hasCompletedOnboarding) }
    public var selectedTheme: String { store[.selectedTheme] }

    /// Counts one more launch, atomically across processes.
    @discardableResult
    public func recordLaunch() throws -> Int { try store.update(.launchCount) { $0 + 1 } }

    public func setTheme(_ theme: String) throws { try store.set(theme, for: .selectedTheme) }

    /// The last searches, newest first, kept in the shared suite the manifest names for the key.
    public var recentSearches: [String] { store[.recentSearches] }

    /// Puts a search first in ``recentSearches`` (once; ten at most), atomically across processes.
    public func recordSearch(_ query: String) throws {
        try store.update(.recentSearches) { Array(([query] + $0.filter { $0 != query }).prefix(10)) }
    }
}
