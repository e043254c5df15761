import StrataCore

// The items `Storage` keeps its credentials in — those of ``storageBackendService``, one per key, the account
// being the key — are placed by the store root's catalog; every change of them goes through it
// (``/StrataCore/TierPlacement``), whichever API makes it.
extension SecretStore {
    /// Runs `body`, a change that sets the items `setting` and removes the items `removing`, through the store
    /// root's catalog for those of them it places; at once when there are none.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` for an item whose key the catalog places in another tier,
    ///   or what `body` throws.
    func reportingChange<T>(
        setting: [ItemIdentity] = [], removing: [ItemIdentity] = [], _ body: () throws -> T
    ) throws -> T {
        let placed = { (items: [ItemIdentity]) in
            items.filter { $0.service == ExactString(Self.storageBackendService) }.map(\.account.string)
        }
        let (set, removed) = (placed(setting), placed(removing))
        if set.isEmpty, removed.isEmpty { return try body() }
        return try placement.change(setting: set, removing: removed) { _, _ in try body() }
    }
}
