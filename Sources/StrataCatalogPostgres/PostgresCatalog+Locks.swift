import StrataCatalog
package import StrataCore
import StrataPostgres
import StrataPostgresClient

// Keys' locks: this process's threads ordered by the in-process stripes first, then the machines by advisory locks
// on the session the calling thread holds (see `PostgresCatalog`).
extension PostgresCatalog {
    package func withKeyLock<T>(_ key: String, _ body: () throws -> T) throws -> T {
        let stripe = CatalogLocks.stripe(of: key)
        return try locks.withStripe(stripe) {
            try holdingAdvisoryLock(of: key) { try locks.holding(key, stripe: stripe, body) }
        }
    }

    package func withKeyLockIfFree<T>(_ key: String, _ body: () throws -> T) throws -> T? {
        let stripe = CatalogLocks.stripe(of: key)
        // In this process the stripe is waited for, as the file catalog waits for its mutex; only another holder's
        // advisory lock makes this give up.
        let outcome: T?? = try locks.withStripeIfFree(stripe) {
            try keyed(key) {
                try withSession { connection -> T? in
                    let keys = lockParameters(of: key)
                    let taken = try connection.query(PostgresCatalogSQL.tryLockKey, keys, operation: "lock key")
                    guard taken.text(0, 1) == "t" else {
                        if taken.text(0, 0) == "t" {
                            release(PostgresCatalogSQL.unlockStore, [keys[0]], on: connection)
                        }
                        return nil
                    }
                    return try holding(PostgresCatalogSQL.unlockKey, keys, on: connection) {
                        _ = try connection.query(
                            PostgresCatalogSQL.waitForFencedWrites, [.text(String(fenceKey(of: key)))],
                            operation: "lock key")
                        return try fenced(key, on: connection) { try locks.holding(key, stripe: stripe, body) }
                    }
                }
            }
        }
        return outcome ?? nil
    }

    package func withKeyLocks<T>(_ keys: [String], _ body: () throws -> T) throws -> T {
        try locks.withStripes(keys.map(CatalogLocks.stripe(of:))) {
            try withSession { connection in
                let store = PostgresParameter.text(String(storeLockKey))
                do {
                    _ = try connection.query(PostgresCatalogSQL.lockStoreShared, [store], operation: "lock keys")
                } catch let error as StorageError {
                    throw lockWaitFailed(error, "every key's lock (a capture)")
                }
                var taken: [PostgresParameter] = []
                let value: T
                do {
                    // In one order everywhere, each lock once: two holders of several keys cannot wait for each
                    // other.
                    for lock in Set(keys.map(lockKey(of:))).sorted() {
                        let parameter = PostgresParameter.text(String(lock))
                        do {
                            _ = try connection.query(PostgresCatalogSQL.lockOne, [parameter], operation: "lock keys")
                        } catch let error as StorageError {
                            throw lockWaitFailed(error, "the lock of one of the keys \(keys)")
                        }
                        taken.append(parameter)
                    }
                    value = try body()
                } catch {
                    for key in taken.reversed() { release(PostgresCatalogSQL.unlockOne, [key], on: connection) }
                    release(PostgresCatalogSQL.unlockStore, [store], on: connection)
                    throw error
                }
                for key in taken.reversed() { try confirmRelease(PostgresCatalogSQL.unlockOne, [key], on: connection) }
                try confirmRelease(PostgresCatalogSQL.unlockStore, [store], on: connection)
                return value
            }
        }
    }

    /// Holds every key still: this process's stripes, then the store's lock exclusively, which waits for every key's
    /// lock held anywhere (each holds the store's lock shared) and keeps new ones waiting.
    package func withEveryKeyLock<T>(_ body: () throws -> T) throws -> T {
        try locks.withEveryStripe {
            try withSession { connection in
                let store = [PostgresParameter.text(String(storeLockKey))]
                do {
                    _ = try connection.query(PostgresCatalogSQL.lockEveryKey, store, operation: "lock every key")
                } catch let error as StorageError {
                    throw lockWaitFailed(error, "a key's lock")
                }
                return try holding(PostgresCatalogSQL.unlockEveryKey, store, on: connection, body)
            }
        }
    }

    package func withKeyLockForChange<T>(_ key: String, _ body: (_ placement: KeyPlacement?) throws -> T) throws -> T {
        let stripe = CatalogLocks.stripe(of: key)
        if locks.isLockedByCurrentThread(key, stripe: stripe) { return try body(nil) }
        return try locks.withStripes(CollectionOfOne(stripe)) {
            try holdingAdvisoryLock(of: key) {
                let row = try placementRow(of: key)
                return try body(KeyPlacement(tier: row.tier, movingTo: row.intent?.to))
            }
        }
    }

    package func isLockedByCurrentThread(_ key: String) -> Bool {
        locks.isLockedByCurrentThread(key, stripe: CatalogLocks.stripe(of: key))
    }

    /// Runs `body` if `key` is placed in `tier` with no move, holding its stripe among this process's threads (as
    /// the file catalog does: other machines are not excluded; a tier that writes late asks again before it writes).
    package func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool {
        try locks.changeIfSettled(
            key,
            {
                let row = try placementRow(of: key)
                return row.tier == tier && row.intent == nil
            }, body)
    }

    package func stageIfPlaced(_ location: StorageLocation, _ body: () throws -> Void) throws -> Bool {
        try locks.stageIfPlaced(
            location.key, { try settledLocation(of: location.key)?.hasPlacement(of: location) == true }, body)
    }

    // MARK: Sessions

    /// Runs `body` holding `key`'s advisory lock (and the store's, shared) on the calling thread's session.
    func holdingAdvisoryLock<T>(of key: String, _ body: () throws -> T) throws -> T {
        try keyed(key) {
            try withSession { connection in
                let keys = lockParameters(of: key)
                do {
                    _ = try connection.query(
                        PostgresCatalogSQL.lockKey, keys + [.text(String(fenceKey(of: key)))], operation: "lock key")
                } catch let error as StorageError {
                    // A session lock outlives the statement that failed: the locks taken before the wait that gave
                    // up (the store's, and the key's when the wait for fenced writes gave up) are given back, or
                    // they would stay on the pooled connection and keep every capture waiting. (An unlock of one
                    // not taken finds none to give.)
                    release(PostgresCatalogSQL.unlockKey, keys, on: connection)
                    throw lockWaitFailed(error, "the key's lock")
                }
                return try holding(PostgresCatalogSQL.unlockKey, keys, on: connection) {
                    try fenced(key, on: connection, body)
                }
            }
        }
    }

    /// Runs `body` with the fence of `key`'s lock, held on `connection`, as the calling thread's: the writes it makes
    /// on other connections of this server check that the lock is still held (``/StrataPostgresClient/PostgresFence``).
    func fenced<T>(_ key: String, on connection: PostgresConnection, _ body: () throws -> T) rethrows -> T {
        let fence = PostgresFence(
            server: configuration.connectionString, holder: connection.serverProcessID, lock: lockKey(of: key),
            fence: fenceKey(of: key))
        return try PostgresFence.holding(fence, body)
    }

    /// Runs `body`, a holder of the locks `unlock` gives back, then gives them back. The unlock is the holder's last
    /// statement on its session: when it fails because the session ended, the locks may have been another's while
    /// `body` ran, and the holder learns it as `.lockLost` though `body` returned — a write through a tier's own API
    /// makes no catalog call after its tier write, and must not be reported done. A `body` that throws has its error
    /// rethrown, the locks given back as they can be.
    func holding<T>(
        _ unlock: String, _ parameters: [PostgresParameter], on connection: PostgresConnection,
        _ body: () throws -> T
    ) throws -> T {
        let value: T
        do {
            value = try body()
        } catch {
            release(unlock, parameters, on: connection)
            throw error
        }
        try confirmRelease(unlock, parameters, on: connection)
        return value
    }

    /// Gives advisory locks back on the session that holds them, throwing `.lockLost` when it ended. A connection
    /// that cannot give them back is closed, and its locks go with its session.
    func confirmRelease(_ sql: String, _ parameters: [PostgresParameter], on connection: PostgresConnection) throws {
        do {
            try onHeldSession(connection) { _ = try $0.query(sql, parameters, operation: "unlock key") }
        } catch {
            connection.discard()
            throw error
        }
    }

    /// `error`, from a wait for an advisory lock, said as what it is when the wait gave up: `what` stayed held by
    /// another thread, process or machine (a long put or move holds a key's lock) past the lock timeout.
    func lockWaitFailed(_ error: StorageError, _ what: String) -> StorageError {
        guard error.code == .lockTimeout else { return error }
        var error = error
        error.message =
            "\(what) stayed held elsewhere past the lock timeout of \(configuration.lockTimeoutMilliseconds) ms: "
            + error.message
        error.recovery =
            "Retry once the operation holding it (on this or another machine) is done, or raise lockTimeoutMilliseconds"
        return error
    }

    /// The parameters of ``PostgresCatalogSQL/lockKey``: the store's lock, then the key's.
    func lockParameters(of key: String) -> [PostgresParameter] {
        [.text(String(storeLockKey)), .text(String(lockKey(of: key)))]
    }

    /// Runs `body` on the connection the calling thread holds locks on; without one, on a connection from the lock
    /// pool, which is the thread's session until `body` returns.
    func withSession<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        if let held = sessions.current() { return try onHeldSession(held, body) }
        return try lockPool.with { connection in try sessions.holding(connection) { try body(connection) } }
    }

    package func confirmHeld(_ key: String) throws {
        guard let held = sessions.current() else {
            throw StorageError(
                .lockLost, "the calling thread holds no key's lock of this catalog", key: key, path: location,
                recovery: "Confirm a key's lock inside withKeyLock")
        }
        try keyed(key) {
            try onHeldSession(held) { _ = try $0.query("SELECT 1", operation: "confirm the key's lock") }
        }
    }

    /// Runs `body`, a statement of a lock holder, on `held`, the session its locks live in. A statement that fails
    /// leaving the connection broken means the session is gone, and with it every lock the thread held: that is
    /// said as `.lockLost`, whatever the statement met (the server's `terminating connection`, a reset, a timeout).
    /// The connection stays broken, so every later statement of the holder says so too, and none reaches the
    /// server through another session.
    func onHeldSession<T>(_ held: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try body(held)
        } catch let error as StorageError where held.isBroken && error.code != .lockLost {
            var lost = StorageError(
                .lockLost,
                "the session holding the key's lock ended (\(error.code): \(error.message)), so another machine "
                    + "may hold the lock now",
                key: error.key, path: location,
                recovery: "Run the operation again; whatever it left half done is settled by the key's next holder")
            lost.operation = error.operation
            lost.detail = error.detail
            throw lost
        }
    }

    /// Gives advisory locks back; a connection that cannot is closed, and its locks go with its session.
    func release(_ sql: String, _ parameters: [PostgresParameter], on connection: PostgresConnection) {
        guard !connection.isBroken else { return }
        do {
            _ = try connection.query(sql, parameters, operation: "unlock key")
        } catch {
            connection.discard()
        }
    }
}
