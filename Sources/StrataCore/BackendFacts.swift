/// What a backend reports about itself (``StorageBackend/concurrencyGuarantee``, ``StorageBackend/durability``,
/// ``StorageBackend/layout``), gathered in one value for listings such as `strata inspect`.
///
/// ```swift
/// let facts = try storage.backend(for: .records).facts
/// print(facts.name, facts.durability)   // postgres durable: ...
/// ```
public struct BackendFacts: Sendable, Hashable {
    /// The tier the backend serves.
    public var tier: Tier
    /// The backend's name (`plist`, `sqlite`, `postgres`).
    public var name: String
    /// What it guarantees about concurrent use.
    public var concurrencyGuarantee: String
    /// How far its writes go before they return.
    public var durability: Durability
    /// Where it keeps its data.
    public var layout: [StorageLayoutEntry]

    /// Creates facts.
    public init(
        tier: Tier, name: String, concurrencyGuarantee: String, durability: Durability, layout: [StorageLayoutEntry]
    ) {
        self.tier = tier
        self.name = name
        self.concurrencyGuarantee = concurrencyGuarantee
        self.durability = durability
        self.layout = layout
    }
}

extension StorageBackend {
    /// The backend's facts in one value.
    public var facts: BackendFacts {
        BackendFacts(
            tier: tier, name: name, concurrencyGuarantee: concurrencyGuarantee, durability: durability, layout: layout)
    }
}
