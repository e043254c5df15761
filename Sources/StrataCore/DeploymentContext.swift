/// Where the app runs, as far as the decision table cares: its minimum supported OS.
///
/// The decision table's rule "SwiftData if the minimum target is iOS 17+, else CoreData" only changes the Apple
/// equivalent the selector reports; on Linux both map to the records tier.
public struct DeploymentContext: Sendable, Hashable, Codable {
    /// The oldest OS the app supports, or `nil` when unknown (reported as CoreData).
    public var minimumOS: PlatformVersion?

    /// Creates a context. The default has no minimum OS.
    public init(minimumOS: PlatformVersion? = nil) {
        self.minimumOS = minimumOS
    }

    /// Whether SwiftData is available on every OS the app supports.
    public var supportsSwiftData: Bool {
        minimumOS?.supportsSwiftData ?? false
    }
}
