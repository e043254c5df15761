package import StrataCore

/// Where the catalog records a key, beside the placement a put is about to make
/// (``CatalogEngine/recordedPlacement(comparedWith:)``).
package struct RecordedPlacement: Sendable, Hashable {
    /// The tier that holds the key.
    package var tier: Tier
    /// The kind the key was put as, when known.
    package var kind: DataKind?
    /// Whether the put's placement is the recorded one (tier, backend, rule, kind, content type): nothing to record.
    package var isUnchanged: Bool

    package init(tier: Tier, kind: DataKind?, isUnchanged: Bool) {
        self.tier = tier
        self.kind = kind
        self.isUnchanged = isUnchanged
    }
}
