import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A catalog's locks: the log lock (appends and compaction) and 64 key stripes (one key's put, move or
/// delete at a time, across threads and processes), and the key each stripe is held for.
///
/// The file catalog's locks are files under `<root>/catalog/locks/`, kept open for the life of the catalog and
/// locked with `flock`; a `Mutex` per lock orders the threads of this process first, because `flock` does not
/// exclude two threads sharing one open file. A catalog engine that orders processes some other way (a database's
/// locks) makes them with no folder: then they order this process's threads only. Lock order: a key stripe, then
/// the log lock; never the other way.
package final class CatalogLocks: Sendable {
    package static let stripeCount = 64
    /// Where the lock files are, or `nil` when the locks order this process's threads only.
    private let directory: String?
    /// One slot per stripe, then the log lock; each holds the lock file's descriptor once opened.
    private let slots: [CatalogLockSlot]
    /// The key whose lock is held now through each stripe (``holding(_:stripe:_:)``), for
    /// ``isLockedByCurrentThread(_:)``. A stripe's lock is held by one thread of the process at a time, so it covers
    /// one key at a time.
    private let keysLocked = Mutex([ExactString?](repeating: nil, count: CatalogLocks.stripeCount))

    /// Locks whose files are in `directory`, or locks among this process's threads only when it is `nil`.
    package init(directory: String?) {
        self.directory = directory
        slots = (0...Self.stripeCount).map { _ in CatalogLockSlot() }
    }

    deinit {
        for slot in slots { slot.descriptor.withLock { if $0.rawValue >= 0 { $0.close() } } }
    }

    /// The stripe of a key: a hash of its exact UTF-8 bytes (FNV-1a), the same in every process.
    package static func stripe(of key: String) -> Int {
        func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(hash % UInt64(stripeCount))
        }
        // In place where the string keeps its bytes (every native string): no copy of it to hash.
        if let stripe = key.utf8.withContiguousStorageIfAvailable(hash) { return stripe }
        var key = key
        return key.withUTF8(hash)
    }

    static func name(of stripe: Int) -> String { stripe < 10 ? "0\(stripe)" : "\(stripe)" }

    /// The lock file of a slot (a stripe, or ``stripeCount`` for the log lock) in `directory`.
    private func path(of slot: Int, in directory: String) -> String {
        directory + "/" + (slot == Self.stripeCount ? "log" : Self.name(of: slot))
    }

    /// Runs `body` with `key` recorded as the key `stripe` is held for; the calling thread holds the stripe.
    package func holding<T>(_ key: String, stripe: Int, _ body: () throws -> T) throws -> T {
        keysLocked.withLock { $0[stripe] = ExactString(key) }
        defer { keysLocked.withLock { $0[stripe] = nil } }
        return try body()
    }

    /// Whether a thread of this process holds `key`'s lock (``holding(_:stripe:_:)``) now.
    package func isLocked(_ key: String, stripe: Int) -> Bool {
        keysLocked.withLock { $0[stripe] == ExactString(key) }
    }

    /// Whether the calling thread holds `key`'s lock (``holding(_:stripe:_:)``).
    package func isLockedByCurrentThread(_ key: String, stripe: Int) -> Bool {
        isHeldByCurrentThread(stripe) && isLocked(key, stripe: stripe)
    }

    /// Runs `body` holding the lock of `stripe` (``stripe(of:)`` of the key).
    package func withStripe<T>(_ stripe: Int, _ body: () throws -> T) throws -> T {
        try with(slot: stripe, wait: true, body)!
    }

    /// Runs `body` holding the lock of `stripe` if it is free now; returns `nil` without running it if another
    /// thread or process holds it.
    package func withStripeIfFree<T>(_ stripe: Int, _ body: () throws -> T) throws -> T? {
        try with(slot: stripe, wait: false, body)
    }

    /// Runs `body` holding every key stripe, taken in stripe order (a put, move or delete holds one stripe at a
    /// time, so taking them in order cannot deadlock with one): no key is put, moved or deleted while it runs.
    package func withEveryStripe<T>(_ body: () throws -> T) throws -> T {
        try withStripes(Array(0..<Self.stripeCount), body)
    }

    /// Runs `body` holding the locks of `stripes`, taken in ascending order; a stripe the calling thread holds
    /// already is not taken again.
    package func withStripes<T>(_ stripes: some Collection<Int>, _ body: () throws -> T) throws -> T {
        if stripes.count == 1, let stripe = stripes.first {
            return isHeldByCurrentThread(stripe) ? try body() : try with(slot: stripe, wait: true, body)!
        }
        let ordered = Set(stripes).sorted()
        func hold(from index: Int) throws -> T {
            guard index < ordered.count else { return try body() }
            let stripe = ordered[index]
            if isHeldByCurrentThread(stripe) { return try hold(from: index + 1) }
            return try with(slot: stripe, wait: true) { try hold(from: index + 1) }!
        }
        return try hold(from: 0)
    }

    /// Whether the calling thread holds the lock of `stripe` now.
    package func isHeldByCurrentThread(_ stripe: Int) -> Bool {
        slots[stripe].owner.load(ordering: .relaxed) == Sys.currentThread
    }

    /// Runs `body` holding `stripe` among this process's threads only (its mutex, not its `flock`): for a change
    /// that another process's operations on the key are ordered against some other way. The caller must not hold
    /// the stripe already (the mutex is not reentrant).
    package func withStripeInProcess<T>(_ stripe: Int, _ body: () throws -> T) rethrows -> T {
        try slots[stripe].descriptor.withLock { _ in try body() }
    }

    /// Runs `body` with the calling thread recorded as the holder of `stripe` (``isHeldByCurrentThread(_:)``), for a
    /// caller inside ``withStripeInProcess(_:_:)`` of that stripe: this process's threads are excluded, other
    /// processes are not.
    package func asHolder<T>(of stripe: Int, _ body: () throws -> T) rethrows -> T {
        let slot = slots[stripe]
        slot.owner.store(Sys.currentThread, ordering: .relaxed)
        defer { slot.owner.store(0, ordering: .relaxed) }
        return try body()
    }

    /// Runs `body`, a change through a tier's own API, if `isSettled` says the key is placed so with no move pending,
    /// ordered with this process's operations on `key` (see ``CatalogEngine/changeIfSettled(_:in:_:)``): at once
    /// when the calling thread holds `key`'s lock (its operation records the result), not at all when it holds the
    /// stripe for another key, and otherwise under the stripe among this process's threads.
    /// - Returns: Whether `body` ran.
    package func changeIfSettled(_ key: String, _ isSettled: () throws -> Bool, _ body: () throws -> Void) throws
        -> Bool
    {
        let stripe = Self.stripe(of: key)
        if isHeldByCurrentThread(stripe) {
            guard isLocked(key, stripe: stripe) else { return false }
            try body()
            return true
        }
        return try withStripeInProcess(stripe) {
            let settled = try isSettled()
            if settled { try body() }
            return settled
        }
    }

    /// Runs `body`, a write staged for later (see ``CatalogEngine/stageIfPlaced(_:_:)``), if `isPlaced` says the key
    /// is placed as the write places it with no move pending: under the stripe among this process's threads, with the
    /// calling thread counted as holding `key`'s lock meanwhile. Not when the calling thread holds the stripe already.
    /// - Returns: Whether `body` ran.
    package func stageIfPlaced(_ key: String, _ isPlaced: () throws -> Bool, _ body: () throws -> Void) throws
        -> Bool
    {
        let stripe = Self.stripe(of: key)
        if isHeldByCurrentThread(stripe) { return false }
        return try withStripeInProcess(stripe) {
            guard try isPlaced() else { return false }
            try asHolder(of: stripe) { try holding(key, stripe: stripe, body) }
            return true
        }
    }

    /// Runs `body` holding the log lock.
    func withLog<T>(_ body: () throws -> T) throws -> T {
        try with(slot: Self.stripeCount, wait: true, body)!
    }

    private func with<T>(slot index: Int, wait: Bool, _ body: () throws -> T) throws -> T? {
        try slots[index].descriptor.withLock { fd -> T? in
            let slot = slots[index]
            guard let directory else {
                slot.owner.store(Sys.currentThread, ordering: .relaxed)
                defer { slot.owner.store(0, ordering: .relaxed) }
                return try body()
            }
            let path = path(of: index, in: directory)
            if fd.rawValue < 0 {
                do throws(Errno) {
                    fd = try Sys.open(path, .readWrite, [.create, .noFollow])
                } catch {
                    throw error.storageError("cannot open a catalog lock", path: path)
                }
            }
            do throws(Errno) {
                try Sys.flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB, path: path)
            } catch let error where !wait && (error.code == EWOULDBLOCK || error.code == EAGAIN) {
                return nil
            } catch {
                throw error.storageError("cannot take a catalog lock", path: path)
            }
            defer { _ = try? Sys.flock(fd, LOCK_UN, path: path) }
            slot.owner.store(Sys.currentThread, ordering: .relaxed)
            defer { slot.owner.store(0, ordering: .relaxed) }
            return try body()
        }
    }
}
