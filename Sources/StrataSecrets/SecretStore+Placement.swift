import StrataCore

extension SecretStore {
    /// Runs `body`, a change that sets the items `setting` and removes the items `removing`, through the store
    /// root's catalog for those of them it places; at once when there are none.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` for an item whose key the catalog places in another tier,
    ///   or what `body` throws.
    func reportingChange<T>(
        setting: [ItemIdentity] = [], removing: [ItemIdentity] = [], _ body: () throws -> T
    ) throws -> T {
        try placement.change(settingItems: setting, removingItems: removing, body)
    }
}
