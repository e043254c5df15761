/// What the catalog keeps in memory for one key: 24 bytes, strings as indices into ``CatalogStrings``, so that a
/// million keys fit in well under 150 MiB.
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
