package import StrataCore

// The items `Storage` keeps its credentials in — those of `SecretStore.storageBackendService`, one per key, the
// account being the key — are placed by the store's catalog; every change of them goes through it, whichever keyring
// (a folder, or rows on a server) and whichever API makes it.
extension TierPlacement {
    /// Runs `body`, a change that sets the items `setting` and removes the items `removing`, through the catalog for
    /// those of them it places; at once when there are none.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` for an item whose key the catalog places in another tier,
    ///   or what `body` throws.
    package func change<T>(
        settingItems setting: [ItemIdentity], removingItems removing: [ItemIdentity] = [], _ body: () throws -> T
    ) throws -> T {
        let placed = { (items: [ItemIdentity]) in
            items.filter { $0.service == ExactString(SecretStore.storageBackendService) }.map(\.account.string)
        }
        let (set, removed) = (placed(setting), placed(removing))
        if set.isEmpty, removed.isEmpty { return try body() }
        return try change(setting: set, removing: removed) { _, _ in try body() }
    }
}
