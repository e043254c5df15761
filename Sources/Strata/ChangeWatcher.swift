import Foundation
import StrataCatalog
import Synchronization

/// The thread that looks for changes for every observation of one `Storage` (``Storage/observe(_:interval:)``,
/// ``Storage/changes(prefix:interval:)``): started by the first observation, ended when the last one ends or the
/// `Storage` goes away. A thread of its own, not a task: the store's API blocks, and an app that calls it from tasks
/// would keep a polling task from ever running.
package final class ChangeWatcher: Sendable {
    private struct Subscriber: Sendable {
        var feed: StorageChangeFeed
        /// The catalog's change counter when `feed` last compared.
        var counted: UInt64
        let interval: Duration
        var due: ContinuousClock.Instant
        let continuation: AsyncStream<StorageChange>.Continuation
    }

    private struct State: Sendable {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var isRunning = false
    }

    private let catalog: any CatalogEngine
    private let state = Mutex(State())
    /// Wakes the thread when an observation starts or ends.
    private let wakeUp = NSCondition()

    init(catalog: any CatalogEngine) {
        self.catalog = catalog
    }

    /// Whether the thread runs: while any observation does.
    package var isRunning: Bool { state.withLock { $0.isRunning } }

    /// Delivers the changes `feed` finds to `continuation`, looking every `interval`, until ``remove(_:)``. The
    /// caller has counted the observation in (``/StrataCatalog/CatalogEngine/beginObserving()``); it is counted out
    /// when it ends.
    func add(
        _ feed: StorageChangeFeed, counted: UInt64, interval: Duration,
        continuation: AsyncStream<StorageChange>.Continuation
    ) {
        let (id, start) = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(
                feed: feed, counted: counted, interval: interval, due: .now + interval, continuation: continuation)
            defer { state.isRunning = true }
            return (state.nextID, !state.isRunning)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "strata.storage.changes"
            thread.start()
        } else {
            signal()
        }
    }

    /// Ends the observation `id`: its sequence finishes and it is counted out.
    func remove(_ id: UInt64) {
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
        guard let removed else { return }
        catalog.endObserving()
        removed.continuation.finish()
        signal()
    }

    /// Ends every observation (the `Storage` is going away).
    func removeAll() {
        for id in state.withLock({ Array($0.subscribers.keys) }) { remove(id) }
    }

    private func signal() {
        wakeUp.lock()
        wakeUp.signal()
        wakeUp.unlock()
    }

    private func run() {
        while true {
            // Due observations, taken out by value; compared without the lock; written back unless removed meanwhile.
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([UInt64: Subscriber], ContinuousClock.Instant?) in
                if state.subscribers.isEmpty {
                    state.isRunning = false
                    return ([:], nil)
                }
                return (state.subscribers.filter { $0.value.due <= now }, state.subscribers.values.map(\.due).min())
            }
            guard let next else { return }
            var looked: [UInt64: Subscriber] = [:]
            var delivered: [(AsyncStream<StorageChange>.Continuation, [StorageChange])] = []
            for (id, var subscriber) in due {
                let count = catalog.changeCount
                if count != subscriber.counted || subscriber.feed.hasPutOff,
                    let changes = try? subscriber.feed.changes(in: catalog)
                {
                    // A catalog that cannot be read now is read again at the next look.
                    subscriber.counted = count
                    delivered.append((subscriber.continuation, changes))
                }
                subscriber.due = .now + subscriber.interval
                looked[id] = subscriber
            }
            state.withLock { state in
                // Only the thread changes a subscriber; one removed meanwhile stays removed.
                for (id, subscriber) in looked where state.subscribers[id] != nil { state.subscribers[id] = subscriber }
            }
            for (continuation, changes) in delivered {
                for change in changes { continuation.yield(change) }
            }
            if due.isEmpty {
                let wait = now.duration(to: next)
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18
                wakeUp.lock()
                _ = wakeUp.wait(until: Date(timeIntervalSinceNow: max(0, seconds)))
                wakeUp.unlock()
            }
        }
    }
}
