import Foundation
import StrataCore
import Synchronization

/// A change to a collection, delivered after the commit.
public struct RecordChange: Sendable, Hashable {
    /// The collection that changed, or `nil` when another process committed and the engine cannot tell which
    /// collections (SQLite; PostgreSQL names them).
    public var collection: String?
    /// Whether the commit came from another process or another store on the same database.
    public var isExternal: Bool
}

/// Delivers commits to subscribers: this store's at once, others' through the engine's watcher, which runs
/// while anyone subscribes and reports only commits this store did not make. Each commit arrives once.
final class ObservationHub: Sendable {
    struct Subscriber {
        var collection: String?
        var handler: @Sendable (RecordChange) -> Void
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var next: UInt64 = 0
        var stopWatching: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func subscribe(
        collection: String?, store: RecordStore, _ handler: @escaping @Sendable (RecordChange) -> Void
    ) -> UInt64 {
        let (id, startWatching) = state.withLock { state -> (UInt64, Bool) in
            state.next += 1
            state.subscribers[state.next] = Subscriber(collection: collection, handler: handler)
            return (state.next, state.stopWatching == nil)
        }
        if startWatching {
            let stop = store.engine.watchExternalCommits { [weak self] collection in self?.external(collection) }
            let extra = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.stopWatching == nil, !state.subscribers.isEmpty else { return stop }
                state.stopWatching = stop
                return nil
            }
            extra?()  // Another subscriber started a watcher first, or everyone left already.
        }
        return id
    }

    func unsubscribe(_ id: UInt64) {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            state.subscribers.removeValue(forKey: id)
            guard state.subscribers.isEmpty else { return nil }
            defer { state.stopWatching = nil }
            return state.stopWatching
        }
        stop?()
    }

    func committed(_ collections: Set<String>) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for collection in collections {
            for subscriber in subscribers where subscriber.collection == nil || subscriber.collection == collection {
                subscriber.handler(RecordChange(collection: collection, isExternal: false))
            }
        }
    }

    private func external(_ collection: String?) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers
        where collection == nil || subscriber.collection == nil || subscriber.collection == collection {
            subscriber.handler(RecordChange(collection: collection, isExternal: true))
        }
    }
}

extension RecordCollection {
    /// Changes to this collection after each commit (this process's, and other processes' as
    /// `collection == nil`). The stream ends when the consumer stops iterating.
    public func changes() -> AsyncStream<RecordChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: RecordChange.self)
        let id = store.observation.subscribe(collection: name, store: store) { change in continuation.yield(change) }
        continuation.onTermination = { [store] _ in store.observation.unsubscribe(id) }
        return stream
    }

    /// A query's results now, then again after every commit that changes them.
    public func observe(_ query: Query) -> AsyncThrowingStream<[R], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [R].self)
        let last = Mutex<[UInt8]?>(nil)
        let emit: @Sendable () -> Void = { [self] in
            do {
                let records = try fetch(query)
                // Compare encodings, so a commit that leaves the results unchanged emits nothing.
                var signature: [UInt8] = []
                for record in records { signature += try RecordCoder.encode(record, collection: name) + [0x0A] }
                let changed = last.withLock { previous -> Bool in
                    defer { previous = signature }
                    return previous != signature
                }
                if changed { continuation.yield(records) }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let id = store.observation.subscribe(collection: name, store: store) { change in
            if change.collection == nil || change.collection == name { emit() }
        }
        continuation.onTermination = { [store] _ in store.observation.unsubscribe(id) }
        emit()
        return stream
    }
}
