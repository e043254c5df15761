/// The thresholds the selector applies. A `Sendable` struct of `var`s: change what you need.
///
/// ```swift
/// var configuration = SelectorConfiguration()
/// configuration.defaults.valueLimit = 16 << 10
/// let selector = StorageSelector(configuration: configuration)
/// ```
///
/// The defaults tier's limits are part of it (``defaults``): `Storage` gives the very same limits to its
/// defaults backend, so a preference the selector sends to defaults is never refused there for its size.
public struct SelectorConfiguration: Sendable, Hashable, Codable {
    /// The defaults tier's limits: a preference over ``DefaultsLimits/valueLimit`` goes to files instead. The
    /// default is ``DefaultsLimits/init(valueLimit:suiteBudget:)``: 64 KiB a value, 1 MiB a suite.
    public var defaults: DefaultsLimits
    /// The most a flat structured value may take and still count as a preference (never more than
    /// ``DefaultsLimits/valueLimit``, whichever is smaller applies). The default is 64 KiB.
    public var smallStructuredLimit: Int
    /// The size up to which a secret counts as the tiny item a keychain expects. Larger sensitive data still
    /// goes to secrets (never to defaults), and the reason says so. The default is 64 KiB.
    public var secretSizeLimit: Int
    /// Where the app runs; decides whether records are reported as SwiftData or CoreData.
    /// The default has no minimum OS (CoreData).
    public var context: DeploymentContext

    /// Creates a configuration with the defaults described on each property.
    public init(
        defaults: DefaultsLimits = DefaultsLimits(),
        smallStructuredLimit: Int = 64 << 10,
        secretSizeLimit: Int = 64 << 10,
        context: DeploymentContext = DeploymentContext()
    ) {
        self.defaults = defaults
        self.smallStructuredLimit = smallStructuredLimit
        self.secretSizeLimit = secretSizeLimit
        self.context = context
    }

    /// The largest flat structured value the selector sends to defaults: the smaller of
    /// ``smallStructuredLimit`` and the defaults value limit.
    var flatStructuredLimit: Int { min(smallStructuredLimit, defaults.valueLimit) }
}
