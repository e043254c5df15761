import StrataCore
import StrataDefaults

/// The observers of a ``PostgresDefaults`` and the listener that brings other machines' changes, started with the
/// first observer and stopped with the last. Keys are matched by their exact scalars, as the suite keeps them.
struct DefaultsObservers {
    /// An observer: the keys it watches (`nil`: every key) and what it calls.
    struct Observer {
        var keys: Set<ExactString>?
        var handler: @Sendable (DefaultsChange) -> Void
    }

    var registered: [UInt64: Observer] = [:]
    var nextID: UInt64 = 0
    /// Stops the listener; `nil` while none runs.
    var stop: (@Sendable () -> Void)?
    /// Whether an observer is starting the listener (outside the lock).
    var isStarting = false
    /// The keys known to be set, or to have been set, since the listener started: what a listener that lost its
    /// connection reports to the observers of every key, with the keys set now (a key removed meanwhile is in
    /// the first, not the second).
    var known: Set<ExactString> = []

    /// Stops the listener, if one runs.
    mutating func stopListening() {
        stop?()
        stop = nil
        known = []
    }

    /// The calls a change of `keys` makes: each observer that watches one of them, with the keys it watches.
    mutating func deliveries(of keys: Set<ExactString>, isExternal: Bool) -> [() -> Void] {
        known.formUnion(keys)
        return registered.values.compactMap { observer in
            let seen = observer.keys.map { $0.intersection(keys) } ?? keys
            guard !seen.isEmpty else { return nil }
            return { observer.handler(DefaultsChange(keys: Set(seen.map(\.string)), isExternal: isExternal)) }
        }
    }
}
