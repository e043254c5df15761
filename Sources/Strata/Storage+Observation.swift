import StrataCatalog

// Observation of the whole store, in every tier and across processes, from the catalog: every writer (`Storage`, a
// tier's own API through the catalog's ledger, the `strata` tool) records there what it changed, under the key's lock,
// and while anyone observes, a write that leaves a key where it was is recorded too (`CatalogEngine.isObserved`).
extension Storage {
    /// How often an observation looks at the catalog's change counter unless told otherwise: 50 ms.
    public static let defaultObservationInterval = Duration.milliseconds(50)

    /// The changes of one key, in whichever tier it lives, made by this process or any other on the same root
    /// (through `Storage`, a tier's own API such as `storage.defaults`, or the `strata` tool).
    ///
    /// ```swift
    /// for await change in try storage.observe("selectedTheme") {
    ///     print(change.event, change.tier as Any)   // set, updated, moved(from:) or removed(from:); its tier now
    /// }
    /// ```
    ///
    /// Changes are seen from the store's catalog, whose change counter (shared memory, one atomic load) is read every
    /// `interval`: a change is delivered within about one interval of being made, and several changes of the key
    /// within one interval are delivered as one, from what was last delivered to what is there now (a set and an
    /// update are one `set`; a value put and removed again, nothing). A move between tiers is one
    /// ``StorageChange/Event/moved(from:)``, never a removal: a key is reported removed only when no tier holds it. A
    /// change to a defaults value written through `storage.defaults` is delivered when the suite is written (after
    /// its write delay, 50 ms by default), once other processes can read it too.
    ///
    /// The sequence ends when the task iterating it is cancelled, when it is dropped, or when this `Storage` is
    /// deinitialized. The looks are made by one thread per `Storage`, shared by its observations, which runs while any
    /// of them does (a thread rather than a task, so that callers blocking the task pool do not hold changes back).
    /// - Parameters:
    ///   - key: The key.
    ///   - interval: How often to look for changes. The default is ``defaultObservationInterval``.
    /// - Returns: The changes made from now on.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for a key no tier accepts, or when the catalog
    ///   cannot be read.
    public func observe(_ key: String, interval: Duration = defaultObservationInterval) throws
        -> AsyncStream<StorageChange>
    {
        try StoragePaths.validateKey(key)
        return try observation(of: .key(key), interval: interval) {
            // A copy the catalog does not record yet (written through a tier's own API while nobody observed) is
            // recorded now, so that its next change is reported as what it is.
            _ = try? location(of: key)
        }
    }

    /// The changes of every key that starts with `prefix` (a plain string prefix, as ``keys(prefix:)`` takes), in
    /// every tier, made by this process or any other on the same root.
    ///
    /// ```swift
    /// for await change in try storage.changes(prefix: "profiles/") {
    ///     if case .moved(let from) = change.event { print(change.key, "moved from", from, "to", change.tier!) }
    /// }
    /// ```
    ///
    /// Delivery, coalescing and the end of the sequence are those of ``observe(_:interval:)``; the changes of one look
    /// are delivered in the keys' byte order. Each look compares the catalog's entries under `prefix` with those last
    /// reported, so it costs time in proportion to the number of keys under `prefix`, and only when the catalog
    /// changed. Starting it records the keys under `prefix` that the catalog does not record yet (found in their
    /// tiers, as ``keys(prefix:)`` lists them).
    /// - Parameters:
    ///   - prefix: The start of the keys to watch; `""` (the default) watches every key.
    ///   - interval: How often to look for changes. The default is ``defaultObservationInterval``.
    /// - Returns: The changes made from now on.
    /// - Throws: ``/StrataCore/StorageError`` when the catalog or a tier's listing cannot be read.
    public func changes(prefix: String = "", interval: Duration = defaultObservationInterval) throws
        -> AsyncStream<StorageChange>
    {
        try observation(of: .prefix(prefix), interval: interval) {
            for key in try keys(prefix: prefix) where try catalog.location(of: key) == nil {
                _ = try? location(of: key)
            }
        }
    }

    /// Counts an observation in, runs `prepare`, and has ``changeWatcher`` report the changes of `scope` from then on.
    /// The count comes first: a write the catalog does not record unless observed either sees it (and is recorded) or
    /// was made before it, and then `prepare` and the first entries read see the write.
    private func observation(
        of scope: StorageChangeFeed.Scope, interval: Duration, prepare: () throws -> Void
    ) throws -> AsyncStream<StorageChange> {
        catalog.beginObserving()
        let feed: StorageChangeFeed
        let counted: UInt64
        do {
            try prepare()
            counted = catalog.changeCount
            feed = try StorageChangeFeed(scope, catalog: catalog)
        } catch {
            catalog.endObserving()
            throw error
        }
        let (stream, continuation) = AsyncStream.makeStream(of: StorageChange.self)
        changeWatcher.add(feed, counted: counted, interval: interval, continuation: continuation)
        return stream
    }
}
