import Foundation
import StrataCore
import Synchronization

/// A change to a collection, delivered after the commit.
public struct RecordChange: Sendable, Hashable {
    /// The collection that changed, or `nil` when another process committed (which collections is not known).
    public var collection: String?
    /// Whether the commit came from another process (seen through `PRAGMA data_version`).
    public var isExternal: Bool
}

/// Delivers commits to subscribers: this process's at once, other processes' by polling `PRAGMA data_version`
/// on a connection of its own. Delivery is at least once: a local commit can also be seen by the poll.
final class ObservationHub: Sendable {
    struct Subscriber {
        var collection: String?
        var handler: @Sendable (RecordChange) -> Void
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var next: UInt64 = 0
        var pollerRunning = false
    }

    private let state = Mutex(State())

    func subscribe(
        collection: String?, store: RecordStore, _ handler: @escaping @Sendable (RecordChange) -> Void
    ) -> UInt64 {
        let (id, startPoller) = state.withLock { state -> (UInt64, Bool) in
            state.next += 1
            state.subscribers[state.next] = Subscriber(collection: collection, handler: handler)
            defer { state.pollerRunning = true }
            return (state.next, !state.pollerRunning)
        }
        if startPoller { startPolling(path: store.path, configuration: store.configuration) }
        return id
    }

    func unsubscribe(_ id: UInt64) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    func committed(_ collections: Set<String>) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for collection in collections {
            for subscriber in subscribers where subscriber.collection == nil || subscriber.collection == collection {
                subscriber.handler(RecordChange(collection: collection, isExternal: false))
            }
        }
    }

    /// Polls while anyone subscribes; the thread ends when the last subscriber leaves.
    private func startPolling(path: String, configuration: RecordsConfiguration) {
        let interval = UInt32(max(10, configuration.observationIntervalMilliseconds)) * 1000
        let thread = Thread { [self] in
            guard
                let connection = try? SQLiteConnection(
                    path: path, readOnly: false, create: false, configuration: configuration),
                var version = try? connection.dataVersion()
            else {
                state.withLock { $0.pollerRunning = false }
                return
            }
            while true {
                usleep(interval)
                let subscribers = state.withLock { state -> [Subscriber]? in
                    if state.subscribers.isEmpty {
                        state.pollerRunning = false
                        return nil
                    }
                    return Array(state.subscribers.values)
                }
                guard let subscribers else { return }
                guard let now = try? connection.dataVersion(), now != version else { continue }
                version = now
                for subscriber in subscribers { subscriber.handler(RecordChange(collection: nil, isExternal: true)) }
            }
        }
        thread.name = "strata.records.observer"
        thread.start()
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
