import Synchronization

/// A registered observer of a ``PostgresDefaults``; cancel it (or let it go) to stop the calls.
public final class PostgresDefaultsObservation: Sendable {
    private weak let defaults: PostgresDefaults?
    private let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(defaults: PostgresDefaults, id: UInt64) {
        self.defaults = defaults
        self.id = id
    }

    /// Stops the calls. Calling it again does nothing.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        defaults?.removeObserver(id)
    }

    deinit { cancel() }
}
