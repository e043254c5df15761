/// The selector's answer: which tier, by which rule, why, and what it corresponds to on Apple platforms.
public struct Selection: Sendable, CustomStringConvertible {
    /// The tier the value belongs in.
    public var tier: Tier
    /// The id of the rule that fired (for example `sensitive-to-secrets`).
    public var ruleID: String
    /// A sentence that explains the choice for this value.
    ///
    /// The selector writes it when it is first read, not when it chooses: `Storage.put` returns a selection for every
    /// value it stores, and formatting the sentence cost more than the rest of the choice.
    public var reason: String {
        get { reasonText ?? explanation?() ?? "" }
        set {
            reasonText = newValue
            explanation = nil
        }
    }
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
    /// The reason, once given or set.
    private var reasonText: String?
    /// Writes the reason (the rule's sentence for the descriptor), when it was not given.
    private var explanation: (@Sendable () -> String)?

    public init(
        tier: Tier, ruleID: String, reason: String, appleEquivalent: String, concurrencyGuarantee: String,
        descriptor: DataDescriptor
    ) {
        self.tier = tier
        self.ruleID = ruleID
        self.reasonText = reason
        self.appleEquivalent = appleEquivalent
        self.concurrencyGuarantee = concurrencyGuarantee
        self.descriptor = descriptor
    }

    /// A selection whose ``reason`` `explanation` writes when it is first read.
    package init(
        tier: Tier, ruleID: String, appleEquivalent: String, descriptor: DataDescriptor,
        explanation: @escaping @Sendable () -> String
    ) {
        self.tier = tier
        self.ruleID = ruleID
        self.appleEquivalent = appleEquivalent
        self.concurrencyGuarantee = ""
        self.descriptor = descriptor
        self.explanation = explanation
    }

    public var description: String {
        "\(tier.rawValue) [\(ruleID), Apple: \(appleEquivalent)]: \(reason)"
    }
}
