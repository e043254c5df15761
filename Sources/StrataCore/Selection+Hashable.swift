// Two selections are equal when every property is, the reason included, however it was written.
extension Selection: Hashable {
    public static func == (lhs: Selection, rhs: Selection) -> Bool {
        lhs.tier == rhs.tier && lhs.ruleID == rhs.ruleID && lhs.appleEquivalent == rhs.appleEquivalent
            && lhs.concurrencyGuarantee == rhs.concurrencyGuarantee && lhs.backend == rhs.backend
            && lhs.durability == rhs.durability && lhs.descriptor == rhs.descriptor && lhs.reason == rhs.reason
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tier)
        hasher.combine(ruleID)
        hasher.combine(reason)
        hasher.combine(appleEquivalent)
        hasher.combine(concurrencyGuarantee)
        hasher.combine(backend)
        hasher.combine(durability)
        hasher.combine(descriptor)
    }
}
