/// The thresholds the selector applies. A `Sendable` struct of `var`s: change what you need.
///
/// ```swift
/// var configuration = SelectorConfiguration()
/// configuration.defaultsBudget = 512 * 1024
/// let selector = StorageSelector(configuration: configuration)
/// ```
public struct SelectorConfiguration: Sendable, Hashable, Codable {
    /// The most a preference may take before it goes to files instead. The default is 1 MiB, the design note's
    /// budget for a whole defaults suite.
    public var defaultsBudget: Int
    /// The most a flat structured value may take and still count as a preference. The default is 64 KiB.
    public var smallStructuredLimit: Int
    /// The size up to which a secret counts as the tiny item a keychain expects. Larger sensitive data still
    /// goes to secrets (never to defaults), and the reason says so. The default is 64 KiB.
    public var secretSizeLimit: Int
    /// Where the app runs; decides whether records are reported as SwiftData or CoreData.
    /// The default has no minimum OS (CoreData).
    public var context: DeploymentContext

    /// Creates a configuration with the defaults described on each property.
    public init(
        defaultsBudget: Int = 1 << 20,
        smallStructuredLimit: Int = 64 << 10,
        secretSizeLimit: Int = 64 << 10,
        context: DeploymentContext = DeploymentContext()
    ) {
        self.defaultsBudget = defaultsBudget
        self.smallStructuredLimit = smallStructuredLimit
        self.secretSizeLimit = secretSizeLimit
        self.context = context
    }
}
