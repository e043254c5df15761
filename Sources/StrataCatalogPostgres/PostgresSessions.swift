import StrataPostgresClient
import StrataSystem
import Synchronization

/// The connections that threads of this process hold key locks on: a PostgreSQL advisory lock belongs to the
/// session that took it, so a thread that holds a key's lock makes every catalog call on that connection until it
/// lets the lock go (and takes a second key's lock on it too).
final class PostgresSessions: Sendable {
    private let held = Mutex<[UInt: HeldSession]>([:])

    /// The connection the calling thread holds locks on, or `nil`.
    func current() -> PostgresConnection? {
        held.withLock { $0[Sys.currentThread]?.connection }
    }

    /// Runs `body` with `connection` as the calling thread's session.
    func holding<T>(_ connection: PostgresConnection, _ body: () throws -> T) rethrows -> T {
        let thread = Sys.currentThread
        let session = HeldSession(connection)
        held.withLock { $0[thread] = session }
        defer { held.withLock { _ = $0.removeValue(forKey: thread) } }
        return try body()
    }
}
