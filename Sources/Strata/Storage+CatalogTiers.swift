import StrataCatalog

// The tiers as the move protocol sees them (`CatalogMoves`, in StrataCatalog): the registry's open backends
// (`opened(_:key:)`, in `Storage.swift`), a typed write (`store(_:in:at:as:)`, in `Storage+Values.swift`), the search
// of the tiers for an uncatalogued key (`adopt(_:)`, in `Storage+Catalog.swift`), and the removal of a copy, here.
extension Storage: CatalogTiers {
    package func openedIfOpen(_ tier: Tier) -> BackendRegistry.Opened? {
        registry.openedIfOpen(for: tier)
    }

    /// Removes `key` from `tier` and makes the removal durable.
    /// - Parameters:
    ///   - skippingLocked: Whether a locked tier counts as holding no copy rather than failing.
    ///   - securely: Whether to erase the copy's bytes too (``/StrataCore/StorageBackend/deleteSecurely(_:)``): for the
    ///     plaintext copy of a value that moved to secrets. A secure removal is flushed even when the copy was already
    ///     gone, so a retried settle finishes erasing what an interrupted one began.
    /// - Returns: Whether there was a copy.
    @discardableResult
    package func removeCopy(of key: String, from tier: Tier, skippingLocked: Bool, securely: Bool = false) throws
        -> Bool
    {
        let backend: any StorageBackend
        do {
            backend = try registry.backend(for: tier)
            let removed = try securely ? backend.deleteSecurely(key) : backend.delete(key)
            guard removed || securely else { return false }
            try backend.flush()
            return removed
        } catch let error as StorageError where skippingLocked && error.code == .locked {
            return false
        }
    }
}
