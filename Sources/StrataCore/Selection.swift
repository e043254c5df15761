/// The selector's answer: which tier, by which rule, why, and what it corresponds to on Apple platforms.
public struct Selection: Sendable, Hashable, CustomStringConvertible {
    /// The tier the value belongs in.
    public var tier: Tier
    /// The id of the rule that fired (for example `sensitive-to-secrets`).
    public var ruleID: String
    /// A sentence that explains the choice for this value.
    public var reason: String
    /// The Apple API this tier stands in for (for example `Keychain` or `SwiftData`).
    public var appleEquivalent: String
    /// What Strata guarantees about concurrent use of the tier.
    public var concurrencyGuarantee: String
    /// The descriptor that was judged.
    public var descriptor: DataDescriptor

    public init(
        tier: Tier, ruleID: String, reason: String, appleEquivalent: String, concurrencyGuarantee: String,
        descriptor: DataDescriptor
    ) {
        self.tier = tier
        self.ruleID = ruleID
        self.reason = reason
        self.appleEquivalent = appleEquivalent
        self.concurrencyGuarantee = concurrencyGuarantee
        self.descriptor = descriptor
    }

    public var description: String {
        "\(tier.rawValue) [\(ruleID), Apple: \(appleEquivalent)]: \(reason)"
    }
}
