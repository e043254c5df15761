import StrataCore
import Synchronization

/// A registered observer; cancel it (or let it go) to stop the calls.
public final class DefaultsObservation: Sendable {
    private weak let store: DefaultsStore?
    private let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(store: DefaultsStore, id: UInt64) {
        self.store = store
        self.id = id
    }

    /// Stops the calls. Calling it again does nothing.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        store?.removeObserver(id)
    }

    deinit { cancel() }
}
