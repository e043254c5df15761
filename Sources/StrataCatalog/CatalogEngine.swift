package import Foundation
package import StrataCore

/// What a store needs of its catalog: where each key lives, the moves under way, and the per-key locks that order
/// every change of a key across threads, processes and (for a shared engine) machines.
///
/// `Storage` and the move protocol speak only this; ``StorageCatalog`` keeps it in files under the store root (a
/// log, a table in memory, stripe locks under `flock`). A catalog shared by several machines is another engine of
/// it. An engine guarantees:
/// - a change recorded `durable` survives a crash of the machine once ``record(_:durable:)`` returns; one recorded
///   without is at least as durable as the tier write it follows (it may be lost with metadata only: a key is found
///   again by searching the tiers);
/// - a reader sees every change another process or machine recorded before the read began;
/// - a key's lock is held by one thread of one process at a time, for as long as the body runs, or, for an engine whose
///   locks live in a server's sessions, until the server ends the session: every catalog call the holder makes after
///   that throws `.lockLost`, and so does the end of the lock's scope, so a body that returned without an error held
///   the lock from start to end.
package protocol CatalogEngine: AnyObject, Sendable {
    /// Where `key` lives, or `nil` when the catalog has no entry for it.
    func location(of key: String) throws -> StorageLocation?
    /// The tier that holds `key`, or `nil` when the catalog has no entry for it: the lookup a read makes.
    func tier(of key: String) throws -> Tier?
    /// The tier that holds `key` and the change counter the lookup saw (see ``changeCount``).
    func placement(of key: String) throws -> (tier: Tier?, changeCount: UInt64)
    /// ``placement(of:)``, with the key's value when the engine reads it in the same step from the tier that holds
    /// the key (an engine whose rows live beside that tier's values, on one server, in one snapshot): such a value is
    /// the key's value at the instant of the lookup, so the reader needs no second look at ``changeCount``. `nil`
    /// when the value was not read so (the engine cannot, or the tier has none: the caller reads it from the tier).
    /// - Parameter tiers: The store's tiers, whose backends tell whether their values can be read so.
    func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    /// Where `key` is placed now, the move it is under, and whether a ``withKeyLock(_:_:)`` of this engine holds
    /// it, without waiting for the key's lock.
    func keyPlacement(of key: String) throws -> KeyPlacement
    /// The catalogued locations of every key that starts with `prefix`, sorted by the keys' UTF-8 bytes.
    func locations(prefix: String) throws -> [StorageLocation]
    /// How many keys the catalog holds.
    var count: Int { get throws }
    /// The keys whose move was started and not finished.
    func unsettledKeys() throws -> [String]
    /// The move of `key` that started and did not finish, or `nil`.
    func intent(for key: String) throws -> CatalogIntent?
    /// A counter that moves whenever any writer changes the catalog: a read that saw it unchanged before and after
    /// saw no change.
    var changeCount: UInt64 { get }

    /// What the catalog records for `location.key`, compared with `location` as this catalog would record it (an
    /// engine may keep a string shortened): `nil` when it has no entry. Refuses, before anything is written, a
    /// location it could not record. The lookup a put makes before it writes.
    func recordedPlacement(comparedWith location: StorageLocation) throws -> RecordedPlacement?
    /// Records `changes`, in order, as one append.
    func record(_ changes: [CatalogChange], durable: Bool) throws

    /// Runs `body` holding `key`'s lock.
    func withKeyLock<T>(_ key: String, _ body: () throws -> T) throws -> T
    /// Runs `body` holding `key`'s lock if no one holds it now; `nil` without running it otherwise.
    func withKeyLockIfFree<T>(_ key: String, _ body: () throws -> T) throws -> T?
    /// Runs `body` holding the locks of every key in `keys`.
    func withKeyLocks<T>(_ keys: [String], _ body: () throws -> T) throws -> T
    /// Runs `body` holding every key's lock: the catalog cannot change meanwhile (a capture).
    func withEveryKeyLock<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` with `key`'s placement, holding its lock unless the calling thread already does.
    func withKeyLockForChange<T>(_ key: String, _ body: (_ placement: KeyPlacement?) throws -> T) throws -> T
    /// Throws unless the calling thread still holds the lock it took with ``withKeyLock(_:_:)``: the check a holder
    /// makes before a step that would destroy another holder's work were the lock lost (removing a copy). A lock
    /// held in a server's session is lost with the session, and a thread that holds none there has none to confirm;
    /// one held in this process is not lost while the process lives, and the check costs nothing.
    /// - Throws: ``/StrataCore/StorageError`` `.lockLost`.
    func confirmHeld(_ key: String) throws
    /// Whether the calling thread holds `key`'s lock through this engine.
    func isLockedByCurrentThread(_ key: String) -> Bool
    /// Runs `body` if `key` is placed in `tier` with no move pending, ordered with this process's changes of it
    /// (see ``PlacementLedger/changeIfSettled(_:in:_:)``); at once when a ``withKeyLock(_:_:)`` of the calling thread
    /// holds the key.
    /// - Returns: Whether `body` ran.
    func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool
    /// Runs `body`, a write of `location.key` into a tier that writes late (and asks the catalog again when it
    /// writes), if the key is placed as `location` places it with no move pending: ordered with this process's
    /// operations on the key, the calling thread counted as holding its lock, and not waiting for other processes.
    /// - Returns: Whether `body` ran; when not, the write takes the key's lock (``withKeyLock(_:_:)``).
    func stageIfPlaced(_ location: StorageLocation, _ body: () throws -> Void) throws -> Bool
    /// The catalog's steps in a capture of the store (``/StrataCore/TierCapture``): their `pin` runs while every
    /// key's lock is held (``withEveryKeyLock(_:)``), after the tiers' pins, their `finish` after the locks are
    /// released. The catalog is written as the file catalog's log (`catalog/log`), which a restore reads into any
    /// catalog.
    func beginCapture() -> any TierCapture

    /// Whether any process observes the store now (`Storage.observe`): then a write that leaves a key where it was is
    /// recorded too, so that observers see it. One atomic load.
    var isObserved: Bool { get }
    /// Counts an observation in, for every writer of the store (see ``isObserved``).
    func beginObserving()
    /// Counts an observation out.
    func endObserving()
    /// Records that `keys` were written in `tier` through the tier's own API (with no lock needed: the check and the
    /// record are one step): a key placed there is recorded again, changed; a key placed nowhere is recorded there,
    /// found; a key placed elsewhere or under a move is left to whoever moves it.
    /// - Parameter backend: The name of the tier's active backend, for a key recorded anew.
    func recordRewrite(of keys: [String], in tier: Tier, backend: String) throws
}

extension CatalogEngine {
    /// ``placement(of:)`` and no value: an engine that keeps its rows apart from every tier's values.
    package func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    {
        let (tier, changeCount) = try placement(of: key)
        return (tier, changeCount, nil)
    }

    /// The catalogued locations of every key.
    package func locations() throws -> [StorageLocation] { try locations(prefix: "") }

    /// Removes `keys` from the catalog (a restore drops the entries of values its capture left out).
    package func forget(_ keys: [String]) throws {
        guard !keys.isEmpty else { return }
        try record(keys.map { .remove(key: $0) }, durable: true)
    }
}
