import StrataDefaults

/// The observers of a ``PostgresDefaults`` and the listener that brings other machines' changes, started with the
/// first observer and stopped with the last.
struct DefaultsObservers {
    /// An observer: the keys it watches (`nil`: every key) and what it calls.
    struct Observer {
        var keys: Set<String>?
        var handler: @Sendable (DefaultsChange) -> Void
    }

    var registered: [UInt64: Observer] = [:]
    var nextID: UInt64 = 0
    /// Stops the listener; `nil` while none runs.
    var stop: (@Sendable () -> Void)?

    /// Stops the listener, if one runs.
    mutating func stopListening() {
        stop?()
        stop = nil
    }

    /// The calls a change of `keys` makes: each observer that watches one of them, with the keys it watches.
    func deliveries(of keys: Set<String>, isExternal: Bool) -> [() -> Void] {
        registered.values.compactMap { observer in
            let seen = observer.keys.map { $0.intersection(keys) } ?? keys
            guard !seen.isEmpty else { return nil }
            return { observer.handler(DefaultsChange(keys: seen, isExternal: isExternal)) }
        }
    }
}
