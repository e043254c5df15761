import Foundation
package import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where every key put through `Storage` lives: its tier, backend, rule, kind, content type, size and time.
///
/// The catalog is the single answer to "where is this key". It is kept under the store root, shared by every
/// thread and process that opens the store:
///
/// ```
/// <root>/catalog/          0700
///   log                    a 16-byte header ("STRATACL", u16 version), then framed records (CatalogRecord)
///   sequence               a change counter, mapped shared by every process
///   observers              how many observations of the store are open, mapped shared by every process
///   locks/00 … locks/63    key stripes; locks/log for appends and compaction
/// ```
///
/// Each process holds the whole catalog in memory (24 bytes of entry per key, strings kept once) and catches up
/// with other processes' appends when the shared change counter moves, so a lookup is a dictionary read and one
/// atomic load. Appends go to the end of the log under the log lock; a record whose frame was cut short by a
/// crash is dropped by the next writer. When the log is much larger than what it describes, it is rewritten
/// (compacted) atomically.
///
/// The catalog records; it does not move values. `Storage` holds a key's stripe lock while it writes a tier
/// and records the result, and writes an `intent` record before a value changes tier, so that a crash at any
/// instant leaves the key readable as exactly the old value or the new one (see `Documentation/Storage.md`).
package final class StorageCatalog: Sendable {
    /// The version of the log format this build writes and reads.
    package static let formatVersion: UInt16 = 1
    static let magic = Array("STRATACL".utf8)
    static let headerSize = 16

    /// The catalog's folder, `<root>/catalog`.
    package let directory: String
    var logPath: String { directory + "/log" }

    let locks: CatalogLocks
    let sequence: SharedCounter
    /// How many ``beginObserving()``s of any process have not ended: while it is above 0, a write that leaves a key
    /// where it was is recorded too (see ``isObserved``).
    let observers: SharedCounter
    let state: Mutex<CatalogState>

    /// Opens the catalog of a store, creating it when absent.
    /// - Parameter root: The store root.
    /// - Throws: ``StorageError`` `.corrupt` when the log is not a catalog, `.unsupportedVersion` when a newer
    ///   Strata wrote it, or an I/O error.
    package init(root: String) throws {
        directory = root + "/" + StoragePaths.catalogFolderName
        for folder in [directory, directory + "/locks"] {
            do {
                try Sys.mkdir(folder, 0o700)
            } catch let error where error.code == EEXIST {
                let info = try? Sys.lstat(folder)
                guard let info, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw StorageError(
                        .symbolicLink, "the catalog folder is not a real folder", path: folder,
                        recovery: "Remove it; the catalog is rebuilt from the tiers as keys are read")
                }
            } catch {
                throw error.storageError("cannot create the catalog folder", path: folder)
            }
        }
        locks = CatalogLocks(directory: directory + "/locks")
        sequence = try SharedCounter(path: directory + "/sequence", what: "the catalog's change counter")
        observers = try SharedCounter(path: directory + "/observers", what: "the catalog's count of observers")
        state = Mutex(CatalogState())
        try locks.withLog {
            try state.withLock { state in
                try openLog(&state, creating: true)
            }
        }
    }

    /// Where `key` lives, or `nil` when the catalog has no entry for it.
    package func location(of key: String) throws -> StorageLocation? {
        try current { state in state.location(of: key) }
    }

    /// The tier that holds `key`, or `nil` when the catalog has no entry for it: the lookup a read makes.
    package func tier(of key: String) throws -> Tier? {
        try current { state in state.entries[key]?.tier }
    }

    /// The tier that holds `key` (`nil` when the catalog has no entry for it) and the change counter this lookup
    /// saw: the lookup an optimistic read makes, which keeps the value it read only if ``changeCount`` has not moved
    /// from `changeCount` meanwhile. The entry reflects at least every change counted up to `changeCount`.
    package func placement(of key: String) throws -> (tier: Tier?, changeCount: UInt64) {
        try current { state in (state.entries[key]?.tier, state.seen) }
    }

    /// Runs `body` if `key` is placed in `tier` with no move of it pending (from memory caught up with the log),
    /// holding the key's stripe among this process's threads only: a `Storage` operation of this process on the key
    /// cannot start or be under way meanwhile; other processes are not excluded (see
    /// ``PlacementLedger/changeIfSettled(_:in:_:)``). When a `Storage` operation of the calling thread is writing the
    /// key (``isLockedByCurrentThread(_:)``), `body` runs at once: that operation records the placement itself.
    /// - Returns: Whether `body` ran: not when the key is unsettled, or the calling thread holds its stripe for
    ///   another key.
    package func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool {
        try locks.changeIfSettled(
            key,
            {
                try current { state in
                    state.entries[key]?.tier == tier
                        && (state.intents.isEmpty || state.intents[ExactString(key)] == nil)
                }
            }, body)
    }

    /// Runs `body`, a write of `location.key` into a tier that writes late, if the catalog places the key as
    /// `location` does (tier, backend, rule, kind and content type) with no move of it pending: holding the key's
    /// stripe among this process's threads only, and counted as holding the key's lock while `body` runs
    /// (``isLockedByCurrentThread(_:)``), so that the tier's own report to the catalog passes it through. Other
    /// processes are not waited for: what `body` stages they cannot see until the tier writes it, and the tier asks
    /// the catalog again then, under its own file lock (see ``/StrataCore/PlacementLedger``), which orders the write
    /// against their moves and deletes of the key.
    /// - Returns: Whether `body` ran: not when the key is placed otherwise or unsettled, or the calling thread holds
    ///   its stripe already.
    package func stageIfPlaced(_ location: StorageLocation, _ body: () throws -> Void) throws -> Bool {
        let key = location.key
        return try locks.stageIfPlaced(
            key,
            {
                try state.withLock { state in
                    if state.seen != sequence.value { try catchUp(&state) }
                    guard let recorded = state.entries[key],
                        state.intents.isEmpty || state.intents[ExactString(key)] == nil
                    else { return false }
                    return recorded.hasPlacement(of: try entry(for: location, in: &state))
                }
            }, body)
    }

    /// Where `key` is placed now, the move it is under, and whether a ``withKeyLock(_:_:)`` of this instance holds it:
    /// from memory caught up with the log, without waiting for the key's lock.
    package func keyPlacement(of key: String) throws -> KeyPlacement {
        let stripe = CatalogLocks.stripe(of: key)
        let isBeingChanged = locks.isLocked(key, stripe: stripe)
        return try current { state in
            KeyPlacement(
                tier: state.entries[key]?.tier,
                movingTo: state.intents.isEmpty ? nil : state.intents[ExactString(key)]?.to,
                isBeingChanged: isBeingChanged)
        }
    }

    /// The entry of `key` (its placement as interned ids, with ``entry(for:)``'s), or `nil` when it has none.
    package func entry(of key: String) throws -> CatalogEntry? {
        try current { state in state.entries[key] }
    }

    /// The catalogued locations of every key that starts with `prefix`, sorted by the keys' UTF-8 bytes.
    package func locations(prefix: String) throws -> [StorageLocation] {
        try current { state in
            state.entries.keys(prefix: prefix).map { ExactString($0) }.sorted().compactMap {
                state.location(of: $0.string)
            }
        }
    }

    /// How many keys the catalog holds.
    package var count: Int {
        get throws { try current { $0.entries.count } }
    }

    /// The keys whose move was started and not finished: by a process that is still moving them, or by one that
    /// died. `Storage` finishes or undoes them when it opens the store.
    package func unsettledKeys() throws -> [String] {
        try current { $0.intents.keys.sorted().map(\.string) }
    }

    /// The shared change counter: it moves whenever any process changes the catalog.
    package var changeCount: UInt64 { sequence.value }

    /// Runs `body` holding `key`'s stripe lock (threads and processes).
    package func withKeyLock<T>(_ key: String, _ body: () throws -> T) throws -> T {
        let stripe = CatalogLocks.stripe(of: key)
        return try locks.withStripe(stripe) { try locks.holding(key, stripe: stripe, body) }
    }

    /// Runs `body` holding `key`'s stripe lock if nobody holds it now; `nil` without running it otherwise.
    package func withKeyLockIfFree<T>(_ key: String, _ body: () throws -> T) throws -> T? {
        let stripe = CatalogLocks.stripe(of: key)
        return try locks.withStripeIfFree(stripe) { try locks.holding(key, stripe: stripe, body) }
    }

    /// Runs `body` holding the stripe locks of every key of `keys` (threads and processes), taken in stripe order;
    /// a stripe the calling thread holds already is not taken again. For a change of several keys at once through a
    /// tier's own API: no `Storage` operation holds one stripe and waits for another, so this cannot deadlock.
    package func withKeyLocks<T>(_ keys: [String], _ body: () throws -> T) throws -> T {
        try locks.withStripes(keys.map(CatalogLocks.stripe(of:)), body)
    }

    /// Confirms at once: a stripe's `flock` and mutex are this process's until it lets them go or dies.
    package func confirmHeld(_ key: String) throws {}

    /// Whether the calling thread is inside ``withKeyLock(_:_:)`` for `key`: a `Storage` operation on the key is
    /// writing it through a tier now.
    package func isLockedByCurrentThread(_ key: String) -> Bool {
        locks.isLockedByCurrentThread(key, stripe: CatalogLocks.stripe(of: key))
    }

    /// Runs `body` with `key`'s stripe lock held for a change through a tier's own API (see
    /// ``withKeyLocks(_:_:)``), giving it where the catalog places the key and the move it is under, read under the
    /// lock; at once, and `nil` for both, when the calling thread is inside ``withKeyLock(_:_:)`` for `key` (a `Storage`
    /// operation writing it, which records the result itself).
    /// - Parameter body: Gets the placement, or `nil` when a `Storage` operation of this thread is writing the key.
    package func withKeyLockForChange<T>(_ key: String, _ body: (_ placement: KeyPlacement?) throws -> T) throws -> T {
        let stripe = CatalogLocks.stripe(of: key)
        if locks.isLockedByCurrentThread(key, stripe: stripe) { return try body(nil) }
        return try locks.withStripes(CollectionOfOne(stripe)) {
            let placement = try current { state in
                KeyPlacement(
                    tier: state.entries[key]?.tier,
                    movingTo: state.intents.isEmpty ? nil : state.intents[ExactString(key)]?.to)
            }
            return try body(placement)
        }
    }

    /// Runs `body` on the catalog state, caught up with every other process's appends.
    func current<T>(_ body: (borrowing CatalogState) throws -> T) throws -> T {
        try state.withLock { state in
            if state.seen != sequence.value { try catchUp(&state) }
            return try body(state)
        }
    }

    /// The pending intent for `key`, if any.
    package func intent(for key: String) throws -> CatalogIntent? {
        // Every put asks; while no move is pending anywhere, without hashing the key.
        try current { $0.intents.isEmpty ? nil : $0.intents[ExactString(key)] }
    }

    /// Appends records under the log lock, applying them to this process's state.
    /// - Parameter durable: Whether to `fsync` the log before returning (intents and tier changes; a write
    ///   that stays in its tier is recorded without one).
    package func append(_ records: [CatalogRecord], durable: Bool) throws {
        try appending(durable: durable) { _ in records }
    }

    /// Appends the records `make` returns (given the state caught up with the log) under the log lock, applying them
    /// to this process's state: what `make` reads cannot change before they are appended.
    /// - Parameter durable: Whether to `fsync` the log before returning.
    func appending(durable: Bool = false, _ make: (inout CatalogState) throws -> [CatalogRecord]) throws {
        try locks.withLog {
            try state.withLock { state in
                try catchUp(&state, truncatingDamage: true)
                let records = try make(&state)
                guard !records.isEmpty else { return }
                var frame: [UInt8] = []
                for record in records { record.encode(into: &frame, strings: state.strings) }
                do {
                    try frame.withUnsafeBytes { try Sys.writeAll(state.fd, $0, path: logPath) }
                    if durable { try Sys.fsync(state.fd, path: logPath) }
                } catch let error as Errno {
                    // Whatever part of the frame reached the file is cut off by the next writer's catch-up.
                    throw error.storageError("cannot append to the catalog log", path: logPath)
                }
                for record in records { state.apply(record) }
                state.offset += frame.count
                state.seen = sequence.bump()
                if state.offset > 1 << 20, state.offset > 4 * state.liveBytesEstimate {
                    try compact(&state)
                }
            }
        }
    }

    /// Interns the strings of a location for an entry.
    package func entry(for location: StorageLocation) throws -> CatalogEntry {
        try state.withLock { state in try entry(for: location, in: &state) }
    }

    /// Interns the strings of a location for an entry, in `state` (held locked by the caller).
    func entry(for location: StorageLocation, in state: inout CatalogState) throws -> CatalogEntry {
        try Self.entry(for: location, in: &state, path: logPath)
    }

    /// Interns the strings of a location for an entry, in `state`; `path` is the log errors name.
    static func entry(for location: StorageLocation, in state: inout CatalogState, path: String) throws
        -> CatalogEntry
    {
        guard let backend = state.strings.intern(location.backend, field: 0),
            let rule = state.strings.intern(location.ruleID, field: 1),
            let contentType = location.contentType.map({ state.strings.intern($0, field: 2) }) ?? CatalogStrings.none
        else {
            throw StorageError(
                .limitExceeded, "the catalog holds 65,534 distinct backend names, rules and content types",
                key: location.key, path: path, recovery: "Use fewer distinct content types")
        }
        return CatalogEntry(
            tier: location.tier, kind: location.kind, backend: backend, rule: rule, contentType: contentType,
            size: Int64(location.size), modified: location.modified.timeIntervalSince1970)
    }
}
