internal import CLibPQ
import Foundation

/// A request that the server cancel the statement a connection is running (libpq's `PGcancel`), independent of
/// the connection: it may be sent after the connection is closed, from another thread.
final class PostgresCancelRequest: @unchecked Sendable {
    // Touched by one thread only: the one `sendInBackground` starts, which frees it.
    private let cancel: OpaquePointer

    init?(_ connection: OpaquePointer) {
        guard let cancel = PQgetCancel(connection) else { return nil }
        self.cancel = cancel
    }

    /// Sends the request on a thread of its own and returns at once: libpq 15's `PQcancel` waits for the server
    /// to close the cancel connection, without a timeout, so against a hung server that thread waits until the
    /// server resumes (or the kernel gives up on the socket).
    func sendInBackground() {
        let thread = Thread { [self] in
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &message, Int32(message.count))
            PQfreeCancel(cancel)
        }
        thread.name = "strata.postgres.cancel"
        thread.start()
    }
}
