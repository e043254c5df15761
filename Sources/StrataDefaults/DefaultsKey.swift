/// A typed preference key, declared once with its default value.
///
/// Declare keys in one place, as the design note asks, instead of scattering string literals:
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
/// ```
public struct DefaultsKey<Value: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The key's name in the suite file.
    public let name: String
    /// What reads return when the key is neither set nor registered.
    public let defaultValue: Value
    /// Whether the name may look like a credential (`token`, `password`, ...). The default is `false`: such keys
    /// are refused, because credentials belong in the secrets tier.
    public let allowsSensitiveName: Bool

    /// Declares a key.
    /// - Parameters:
    ///   - name: The key's name in the suite.
    ///   - defaultValue: What reads return when the key is unset.
    ///   - allowsSensitiveName: Permit a credential-looking name that is not a credential (`tokenizerMode`).
    public init(_ name: String, default defaultValue: Value, allowsSensitiveName: Bool = false) {
        self.name = name
        self.defaultValue = defaultValue
        self.allowsSensitiveName = allowsSensitiveName
    }

    public static func == (lhs: DefaultsKey, rhs: DefaultsKey) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}
