import StrataCore

/// A typed preference key, declared once with its default value.
///
/// Declare keys in one place instead of scattering string literals (storage-lint's `string-literal-key`):
///
/// ```swift
/// extension DefaultsKey where Value == Bool {
///     static let hasCompletedOnboarding = DefaultsKey("hasCompletedOnboarding", default: false)
/// }
/// extension DefaultsKey where Value == String {
///     static let selectedTheme = DefaultsKey("selectedTheme", default: "system")
/// }
///
/// let onboarded = store[.hasCompletedOnboarding]          // false when unset
/// let explicitly = try store.value(for: .hasCompletedOnboarding)   // nil when unset: not the same as false
/// store[.selectedTheme] = "dark"
/// ```
///
/// A key may name its own ``suite``: every ``DefaultsStore`` then reads and writes it in that suite's file,
/// whatever suite the store itself was opened on (the key manifest's `"suite"` field does this).
public struct DefaultsKey<Value: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The key's name in the suite file.
    public let name: String
    /// What reads return when the key is neither set nor registered.
    public let defaultValue: Value
    /// The suite the key lives in (`group.com.example.shared`), or `nil` for the suite of the store it is used
    /// with.
    public let suite: String?
    /// Whether the name may look like a credential (`token`, `password`, ...). The default is `false`: such keys
    /// are refused, because credentials belong in the secrets tier.
    public let allowsSensitiveName: Bool

    /// Declares a key.
    /// - Parameters:
    ///   - name: The key's name in the suite.
    ///   - defaultValue: What reads return when the key is unset.
    ///   - suite: The suite the key always lives in; `nil` (the default) for the store's own suite. A bad suite
    ///     name is reported when the key is used (`invalid-argument`).
    ///   - allowsSensitiveName: Permit a credential-looking name that is not a credential (`tokenizerMode`).
    public init(_ name: String, default defaultValue: Value, suite: String? = nil, allowsSensitiveName: Bool = false) {
        self.name = name
        self.defaultValue = defaultValue
        self.suite = suite
        self.allowsSensitiveName = allowsSensitiveName
    }

    /// Two keys are equal when they have the same name in the same suite, by exact Unicode scalars.
    public static func == (lhs: DefaultsKey, rhs: DefaultsKey) -> Bool {
        ExactString(lhs.name) == ExactString(rhs.name) && exactSuite(lhs) == exactSuite(rhs)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactString(name))
        hasher.combine(Self.exactSuite(self))
    }
    public var description: String { name }

    private static func exactSuite(_ key: DefaultsKey) -> ExactString? { key.suite.map { ExactString($0) } }
}
