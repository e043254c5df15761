import Foundation
import Strata
import Synchronization
import Testing

/// The changes an observation delivered, gathered by a task that iterates it.
final class ChangeLog: Sendable {
    private let state = Mutex<(changes: [StorageChange], hasEnded: Bool)>(([], false))
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    /// Starts gathering what `stream` delivers.
    init(_ stream: AsyncStream<StorageChange>) {
        let task = Task { [owner = Wrapped(self)] in
            for await change in stream { owner.log?.state.withLock { $0.changes.append(change) } }
            owner.log?.state.withLock { $0.hasEnded = true }
        }
        consumer.withLock { $0 = task }
    }

    /// A weak reference to the log, for its consumer task.
    private struct Wrapped: Sendable {
        weak var log: ChangeLog?
        init(_ log: ChangeLog) { self.log = log }
    }

    var changes: [StorageChange] { state.withLock { $0.changes } }
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// Cancels the task that iterates the stream.
    func cancel() { consumer.withLock { $0?.cancel() } }

    /// Waits until `predicate` holds of the changes delivered so far; fails the test only if it never does, after
    /// 6,000 looks 10 ms apart (a minute at least). Counted in looks, not by the clock: while the test run's other
    /// tests hold every thread of the task pool, neither this waiter nor the task gathering the changes runs, and a
    /// clock deadline would pass with the change delivered but not yet looked at.
    @discardableResult
    func wait(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: ([StorageChange]) -> Bool
    ) async throws -> [StorageChange] {
        for _ in 0..<6_000 {
            let (changes, hasEnded) = state.withLock { ($0.changes, $0.hasEnded) }
            if predicate(changes) || hasEnded { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let changes = self.changes
        if predicate(changes) { return changes }
        Issue.record("never saw \(what); saw \(changes)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits for a change of `key` by `event`, and returns it.
    @discardableResult
    func wait(
        for event: StorageChange.Event, of key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> StorageChange {
        let changes = try await wait(for: "\(event) of \(key)", sourceLocation: sourceLocation) {
            $0.contains { $0.key == key && $0.event == event }
        }
        return changes.last { $0.key == key && $0.event == event }!
    }

    /// Waits until the stream ends.
    func waitForEnd(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await wait(for: "the end of the stream", sourceLocation: sourceLocation) { _ in self.hasEnded }
    }
}
