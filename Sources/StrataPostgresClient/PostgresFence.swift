package import StrataCore
import StrataSystem
import Synchronization

/// What the holder of a key's lock in a catalog on PostgreSQL hands to the writes it makes on other connections of
/// the same server (a records value in `strata_kv`), so that each write checks, in its own transaction, that the lock
/// is still held — and the key's next holder waits for a write that checked in time to finish.
///
/// The lock is a session-level advisory lock, lost with the holder's session while the holder goes on. A fenced
/// write, in the transaction of its statement:
/// 1. takes ``fence`` shared (`pg_advisory_xact_lock_shared`, given back at its commit);
/// 2. checks in `pg_locks` that session ``holder`` still holds ``lock``, and writes nothing when it does not.
///
/// A new holder takes ``lock``, then ``fence`` exclusively for an instant, which waits for every write that took it
/// shared. So a write either checked after the old holder's session ended and wrote nothing, or checked before and
/// committed before the new holder did anything with the key.
package struct PostgresFence: Sendable, Hashable {
    /// The connection string of the server the lock lives on: a write on another server cannot check it.
    package let server: String
    /// The server process of the session that holds ``lock``.
    package let holder: Int32
    /// The key's advisory lock.
    package let lock: Int64
    /// The advisory lock a fenced write holds shared while it runs.
    package let fence: Int64

    package init(server: String, holder: Int32, lock: Int64, fence: Int64) {
        self.server = server
        self.holder = holder
        self.lock = lock
        self.fence = fence
    }

    /// The statement a fenced write starts with, as common table expressions: `fence` has one row, whose `held`
    /// says whether the lock is still held (parameters `$n`…`$n+2`: ``fence``, ``holder``, ``lock``).
    package static func check(from parameter: Int) -> String {
        let fence = "$\(parameter)::int8"
        let holder = "$\(parameter + 1)::int4"
        let lock = "$\(parameter + 2)::int8"
        return """
            fence_taken AS (SELECT pg_advisory_xact_lock_shared(\(fence))),
            fence AS (SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND mode = 'ExclusiveLock' AND pid = \(holder) AND objsubid = 1
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND classid = ((\(lock) >> 32) & 4294967295)::oid AND objid = (\(lock) & 4294967295)::oid) AS held
                FROM fence_taken)
            """
    }

    /// The parameters of ``check(from:)``.
    package var parameters: [PostgresParameter] {
        [.text(String(fence)), .text(String(holder)), .text(String(lock))]
    }

    /// The refusal of a write of `key` into `tier` whose lock the calling thread lost: nothing was written.
    package static func lockLost(_ key: String, _ operation: String, tier: Tier) -> StorageError {
        var error = StorageError(
            .lockLost,
            "the key's lock was lost before the write (the catalog's session that held it ended); nothing was written",
            tier: tier, key: key,
            recovery: "Run the operation again; whatever it left half done is settled by the key's next holder")
        error.operation = operation
        return error
    }

    // The fence of each thread that holds a key's lock now.
    private static let held = Mutex<[UInt: PostgresFence]>([:])

    /// The fence of the key's lock the calling thread holds, or `nil`.
    package static func current() -> PostgresFence? {
        held.withLock { $0[Sys.currentThread] }
    }

    /// Runs `body` with `fence` as the calling thread's (the one it had before comes back after).
    package static func holding<T>(_ fence: PostgresFence, _ body: () throws -> T) rethrows -> T {
        let thread = Sys.currentThread
        let previous = held.withLock { $0.updateValue(fence, forKey: thread) }
        defer { held.withLock { $0[thread] = previous } }
        return try body()
    }
}
