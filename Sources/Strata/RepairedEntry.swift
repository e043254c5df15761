public import StrataCore

/// A catalog entry that named a tier which did not hold the key (something outside Strata removed the value, or a
/// crash came between a tier's removal and its record), and how it was repaired: the entry was removed, and the key
/// recorded where a copy was found, if one was.
///
/// ``Storage`` repairs such an entry when a read, a listing or ``Storage/verifyCatalog()`` meets it; the next
/// ``Storage/verifyCatalog()`` reports each repair once (``CatalogReport/repaired``).
public struct RepairedEntry: Sendable, Hashable, CustomStringConvertible {
    /// The key.
    public var key: String
    /// The tier the entry named.
    public var tier: Tier
    /// The tier that held a copy, where the key is recorded now; `nil` when none did (the value is gone).
    public var foundIn: Tier?

    /// Creates a report of one repair.
    public init(key: String, tier: Tier, foundIn: Tier?) {
        self.key = key
        self.tier = tier
        self.foundIn = foundIn
    }

    public var description: String {
        "\(key.shortenedForDisplay()): the catalog said \(tier.rawValue) holds it, and it did not; "
            + (foundIn.map { "recorded in \($0.rawValue), which holds it" } ?? "no tier does: entry removed")
    }
}
