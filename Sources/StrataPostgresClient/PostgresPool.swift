import Foundation
import StrataCore
import Synchronization

/// Connections, checked out one per thread; opened as needed up to the pool's size, reused, and replaced
/// when the server dropped them (found at checkout for an idle one, or by the call that met the drop).
package final class PostgresPool: Sendable {
    package let configuration: PostgresClientConfiguration
    private let idle = Mutex<[ConnectionBox]>([])
    private let slots: DispatchSemaphore

    package init(_ configuration: PostgresClientConfiguration) {
        self.configuration = configuration
        slots = DispatchSemaphore(value: configuration.poolSize)
    }

    package func with<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        // Every call holding a connection is itself bounded by the deadline, so this wait is too; it ends early
        // only when the pool is too small for the load.
        let milliseconds = configuration.callTimeoutMilliseconds
        let waited: DispatchTimeoutResult =
            milliseconds > 0
            ? slots.wait(timeout: .now() + .milliseconds(milliseconds))
            : {
                slots.wait(); return .success
            }()
        guard waited == .success else {
            var error = StorageError(
                .timeout, "all \(configuration.poolSize) connections of the pool stayed busy for \(milliseconds) ms",
                tier: configuration.tier, recovery: "Raise poolSize, or shorten the transactions that hold connections")
            error.operation = "connect"
            throw error
        }
        defer { slots.signal() }
        // An idle connection the server closed meanwhile (all of them, after a restart) is dropped here rather
        // than failing the call it would be handed to.
        var reused = idle.withLock { $0.popLast() }
        while let box = reused, box.connection.wasClosedByServer() { reused = idle.withLock { $0.popLast() } }
        let box = try reused ?? ConnectionBox(PostgresConnection(configuration))
        defer {
            // A broken connection, or one left inside a transaction, is not handed out again.
            if !box.connection.isBroken && !box.connection.isInTransaction && !box.connection.isPipelining {
                idle.withLock { $0.append(box) }
            }
        }
        return try body(box.connection)
    }

    /// The server process ids of the idle connections (for tests that make the server drop them).
    package func idleServerProcessIDs() -> [Int32] { idle.withLock { $0.map(\.connection.serverProcessID) } }

    /// The round trips the idle connections made so far (for tests that count them).
    package func idleRoundTrips() -> Int { idle.withLock { $0.reduce(0) { $0 + $1.connection.roundTrips } } }

    /// The statements the idle connections sent (for tests).
    package func idleStatementsSent() -> Int { idle.withLock { $0.reduce(0) { $0 + $1.connection.statementsSent } } }

    package func drain() {
        let boxes = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle
        }
        for box in boxes { box.connection.close() }
    }
}

/// A connection handed to one thread at a time by the pool.
final class ConnectionBox: @unchecked Sendable {
    // Only touched by the thread that has checked it out of the pool.
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}
