/// What the catalog keeps in memory for one key: 24 bytes, strings as indices into ``CatalogStrings``, so that a
/// million keys fit in well under 150 MiB.
package import StrataCore

package struct CatalogEntry: Sendable, Hashable {
    package var tier: Tier
    package var kind: DataKind?
    package var backend: UInt16
    package var rule: UInt16
    /// ``CatalogStrings/none`` when there is no content type.
    package var contentType: UInt16
    package var size: Int64
    /// Seconds since 1970.
    package var modified: Double
}

extension CatalogEntry {
    /// Whether `other` puts the key in the same place by the same decision: tier, backend, rule, kind and content
    /// type (size and modification time aside), as ``StorageLocation/hasPlacement(of:)`` says of locations. Both
    /// entries' strings were interned by the same catalog, so equal ids are equal strings.
    package func hasPlacement(of other: CatalogEntry) -> Bool {
        tier == other.tier && backend == other.backend && rule == other.rule && kind == other.kind
            && contentType == other.contentType
    }
}
