import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Listens on one `NOTIFY` channel with a connection of its own, on a thread of its own, until stopped.
///
/// A lost connection is reopened, and ``start(_:channel:onReconnect:onNotification:)`` tells its caller through
/// `onReconnect` (notifications sent meanwhile are lost, so the caller reports a change it cannot name). A listener
/// only reads, and a hung server sends nothing, which looks like a quiet one (its kernel even answers TCP
/// keepalives): after ``probeInterval`` without a word it asks the server something, within the call deadline.
package enum PostgresListener {
    /// How long the listener waits without hearing from its server before checking that it still answers.
    package static let probeInterval = Duration.seconds(5)

    /// Starts listening.
    /// - Parameters:
    ///   - client: Where to connect.
    ///   - channel: The channel, an SQL identifier (quoted here).
    ///   - onReconnect: Called after the connection was lost and opened again.
    ///   - onNotification: Called with each notification's payload, on the listener's thread.
    ///   - waitingUntilListening: Whether to return only once the first `LISTEN` ran (or failed, or the connect
    ///     timeout passed), so that a notification sent after the return is heard. The default is `false`.
    /// - Returns: What stops it (the thread ends within a tenth of a second).
    package static func start(
        _ client: PostgresClientConfiguration, channel: String, waitingUntilListening: Bool = false,
        onReconnect: @escaping @Sendable () -> Void, onNotification: @escaping @Sendable (String) -> Void
    ) -> @Sendable () -> Void {
        let stop = StopFlag()
        let listening = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { listening.signal() }
            var connection: PostgresConnection?
            var reconnected = false
            var lastHeard = ContinuousClock.now
            while !stop.isSet {
                do {
                    if connection == nil {
                        let fresh = try PostgresConnection(client)
                        try fresh.execute("LISTEN \"\(channel)\"", operation: "observe")
                        connection = fresh
                        lastHeard = .now
                        if reconnected { onReconnect() } else { listening.signal() }
                    }
                    if ContinuousClock.now - lastHeard > probeInterval {
                        try connection!.execute("SELECT 1", operation: "observe")
                        lastHeard = .now
                    }
                    let arrived = try connection!.notifications(waitingUpTo: 0.1)
                    if !arrived.isEmpty { lastHeard = .now }
                    for (heard, payload) in arrived where heard == channel && !stop.isSet {
                        onNotification(payload)
                    }
                } catch {
                    connection?.discard()
                    connection = nil
                    if !reconnected { listening.signal() }
                    reconnected = true
                    usleep(200_000)
                }
            }
            connection?.close()
        }
        thread.name = "strata.postgres.listener"
        thread.start()
        if waitingUntilListening {
            _ = listening.wait(timeout: .now() + .seconds(max(1, client.connectTimeoutSeconds)))
        }
        return { stop.set() }
    }
}

/// A flag set once, read from the listener's thread.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
