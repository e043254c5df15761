import StrataCore
import Synchronization

extension DefaultsStore {
    /// Calls `handler` after every change to the suite (or to some keys), whether made by this store, by another
    /// store on the same suite file in this process, or seen in the file after another process wrote it.
    ///
    /// The handler runs on the thread that made the change, or on the file watcher's thread for external
    /// changes; keep it short. Keep the returned observation: the handler is removed when it is cancelled or
    /// deinitialized, or when this store goes away.
    /// - Parameters:
    ///   - keys: Only changes touching these keys; `nil` for every change. The default is `nil`.
    ///   - handler: Receives the changed keys and whether the change came from another process.
    public func observe(
        keys: Set<String>? = nil, _ handler: @escaping @Sendable (DefaultsChange) -> Void
    ) -> DefaultsObservation {
        let id = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = Observer(owner: ObjectIdentifier(self), keys: keys, handler: handler)
            return state.nextObserver
        }
        return DefaultsObservation(store: self, id: id)
    }

    /// Calls `handler` with the key's new value after each change to it, from this process or another.
    ///
    /// A value that moves out of the suite into another tier of the store (a `Storage` put or move) is not reported:
    /// it was not removed, and its default is not its value. `Storage.observe(_:)` follows it across tiers.
    public func observe<Value>(
        _ key: DefaultsKey<Value>, _ handler: @escaping @Sendable (Value) -> Void
    ) -> DefaultsObservation {
        observe(key, options: []) { change in
            if change.movedTo == nil { handler(change.newValue) }
        }
    }

    /// Calls `handler` with the key's old and new value after each change to it, from this process or another,
    /// and first with its current value when `options` has ``DefaultsObservationOptions/initial``.
    ///
    /// ```swift
    /// let watching = store.observe(.selectedTheme, options: [.initial]) { change in
    ///     apply(change.newValue)                  // at once, then after every change
    ///     if let old = change.oldValue { print("was", old) }
    /// }
    /// ```
    ///
    /// Values read as the subscript reads them: the key's default when unset or of another type, the second case
    /// with ``DefaultsKeyChange/typeMismatch`` saying so (never the default in silence). The old value is the one this observation last delivered or,
    /// for its first change, the value when it was registered. A value that moved out of the suite into another tier
    /// of the store is delivered with ``DefaultsKeyChange/movedTo`` naming that tier: `newValue` is then what the suite
    /// reads, not the value.
    /// A key that names a ``DefaultsKey/suite`` is observed in that suite; when that suite cannot be opened (a bad
    /// name), only the initial value (the key's default) is delivered. See ``observe(keys:_:)`` for the threads the
    /// handler runs on and the observation's lifetime.
    public func observe<Value>(
        _ key: DefaultsKey<Value>, options: DefaultsObservationOptions,
        _ handler: @escaping @Sendable (DefaultsKeyChange<Value>) -> Void
    ) -> DefaultsObservation {
        guard let store = try? home(of: key) else {
            if options.contains(.initial) { handler(DefaultsKeyChange(oldValue: nil, newValue: key.defaultValue)) }
            return DefaultsObservation(store: self, id: 0)  // registered ids start at 1: cancelling it does nothing
        }
        let last = SharedMutex(store.currentValue(of: key))
        let observation = store.observe(keys: [key.name]) { [weak store] _ in
            guard let store else { return }
            let new = store.currentValue(of: key)
            let old = last.withLock { last in
                let old = last
                last = new
                return old
            }
            handler(
                DefaultsKeyChange(
                    oldValue: old, newValue: new, movedTo: store.tierHolding(movedOut: key.name),
                    typeMismatch: store.typeMismatch(for: key)))
        }
        if options.contains(.initial) {
            handler(
                DefaultsKeyChange(
                    oldValue: nil, newValue: last.withLock { $0 }, typeMismatch: store.typeMismatch(for: key)))
        }
        return observation
    }

    /// The suite's changes as an async sequence; it ends when the consumer stops iterating.
    public func changes() -> AsyncStream<DefaultsChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: DefaultsChange.self)
        let observation = observe { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// A key's values after each change (in the key's ``DefaultsKey/suite`` when it names one), as an async
    /// sequence. A value that moves into another tier of the store is not delivered (see ``observe(_:_:)``).
    public func values<Value>(for key: DefaultsKey<Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let observation = observe(key) { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// The tier the store root's catalog places `key` in, when the suite does not hold it and the catalog places it
    /// in another tier: where a value removed from the suite by a move went. `nil` when the suite holds it, when it
    /// is gone, or when no catalog places the suite's keys.
    func tierHolding(movedOut key: String) -> Tier? {
        guard object(forKey: key, includingRegistered: false) == nil,
            let ledger = try? placement.ledger(for: key), let tier = try? ledger.placement(of: key).tier,
            tier != .defaults
        else { return nil }
        return tier
    }

    func removeObserver(_ id: UInt64) {
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    /// Calls the observers interested in `change`, outside the state lock.
    func notify(_ change: DefaultsChange) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers {
            if let keys = observer.keys, keys.isDisjoint(with: change.keys) { continue }
            observer.handler(change)
        }
    }
}
