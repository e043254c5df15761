/// A move that has started and not finished: until it settles, `key` may have a copy in both tiers.
package import StrataCore

package struct CatalogIntent: Sendable, Hashable {
    package var key: String
    /// The tier the value was in, or `nil` for a key that had no value.
    package var from: Tier?
    /// The tier the value is moving to.
    package var to: Tier

    package init(key: String, from: Tier?, to: Tier) {
        self.key = key
        self.from = from
        self.to = to
    }
}
