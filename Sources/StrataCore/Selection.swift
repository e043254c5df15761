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
    /// What the tier's active backend guarantees about concurrent use, as the backend reports it
    /// (``StorageBackend/concurrencyGuarantee``). Empty when a bare ``StorageSelector`` chose: it knows no
    /// backend; `Storage.select` and `Storage.put` fill it in.
    public var concurrencyGuarantee: String
    /// The name of the tier's active backend, when a `Storage` chose; `nil` from a bare selector.
    public var backend: String?
    /// How far the active backend's writes go before they return, when a `Storage` chose; `nil` from a bare
    /// selector.
    public var durability: Durability?
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
