/// What a tier store opened on a store root asks of the store's catalog, so that the catalog stays true whoever
/// writes: a key the catalog places in another tier is not written here, a removal here removes the key's
/// placement, and a write made late (a coalesced preference) is dropped when the key has since gone elsewhere.
///
/// `Storage` provides it for its root. A tier store never sees the catalog: it holds a `TierPlacement`, which
/// finds the ledger in the store's configuration or, for a store opened on its own, in `PlacementLedgers`.
public protocol PlacementLedger: AnyObject, Sendable {
    /// Whether the catalog places the keys of the store of `tier` named `name`: the suite, keyring or record store
    /// the store root's configuration names (the files tier has one store, whatever its name).
    func places(_ tier: Tier, store name: String) -> Bool

    /// Runs `body`, a change made through the tier's own API that sets the keys of `setting` and removes those
    /// of `removing`, holding those keys' locks across threads and processes.
    ///
    /// A key of `setting` that the catalog places in another tier is refused before `body` runs. Once `body`
    /// returns, a key of `removing` that the catalog places in `tier` is no longer placed anywhere. When a
    /// `Storage` operation on the calling thread is writing the key through the tier already, `body` runs at once:
    /// that operation records the placement itself.
    /// - Parameters:
    ///   - tier: The tier making the change.
    ///   - setting: The keys the change writes.
    ///   - removing: The keys the change removes.
    ///   - body: The change. It gets the keys of `setting` that are placed in `tier` now (or that a `Storage`
    ///     operation is writing there): a tier that writes late checks those again before it writes
    ///     (`TierPlacement.allowsLateWrite(of:claimed:)`).
    /// - Returns: What `body` returns.
    /// - Throws: ``StorageError`` `.conflict` naming the key and, in ``StorageError/suggestedTier``, the tier that
    ///   holds it; `.conflict` for a key whose move between tiers a crashed process left unsettled; the catalog's
    ///   I/O errors; or what `body` throws.
    func change<T>(
        _ tier: Tier, setting: [String], removing: [String], _ body: (_ claimed: Set<ExactString>) throws -> T
    ) throws -> T

    /// Where the catalog places `key` now, caught up with every process's changes, without waiting for a key's
    /// lock: a tier asks it just before a late write, while it holds its own file lock (which a process moving the
    /// key may be waiting for while it holds the key's lock).
    /// - Throws: ``StorageError`` when the catalog cannot be read.
    func placement(of key: String) throws -> KeyPlacement

    /// Runs `body`, a set of `key` that a tier stages now and writes later, when the catalog places `key` in `tier`
    /// with no move of it pending: ordered against this process's operations on the key, and not waiting for
    /// other processes (the tier's check just before the write orders it against theirs). When a `Storage` operation
    /// on the calling thread is writing the key through the tier, `body` runs at once, as in
    /// ``change(_:setting:removing:_:)``.
    /// - Returns: Whether `body` ran; when not, the set goes through ``change(_:setting:removing:_:)``.
    /// - Throws: ``StorageError`` when the catalog cannot be read, or what `body` throws.
    func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool

    /// Says that the keys of `keys` were written in `tier` through the tier's own API, once the values are in place
    /// (after ``change(_:setting:removing:_:)`` returns, or when a tier that writes late writes them), so that the
    /// store's observers hear of it. It takes no key's lock, so a tier may call it holding one, or its own file
    /// lock.
    /// - Throws: ``StorageError`` when the catalog cannot record it (the values stay written).
    func wrote(_ keys: [String], in tier: Tier) throws
}

extension PlacementLedger {
    /// Records nothing: a ledger with no observers to tell.
    public func wrote(_ keys: [String], in tier: Tier) throws {}
}
