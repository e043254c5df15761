package import StrataCore

/// A change to a catalog, in the words every catalog engine shares: where a key now lives, that it is gone, and
/// the two records that bracket a move (see ``CatalogEngine``).
package enum CatalogChange: Sendable, Hashable {
    /// The key now lives where the location says.
    case set(StorageLocation)
    /// The key is gone from every tier.
    case remove(key: String)
    /// A move of `key` into `to` has started (`from`: the tier it leaves, `nil` for a key that had no value); until
    /// the matching ``settle(key:)``, a copy may exist in both tiers.
    case intent(key: String, from: Tier?, to: Tier)
    /// The move of `key` is finished: the copy that lost was removed.
    case settle(key: String)
}

extension CatalogChange {
    /// The key the change is about.
    package var key: String {
        switch self {
        case .set(let location): location.key
        case .remove(let key), .intent(let key, _, _), .settle(let key): key
        }
    }
}
