import Foundation
import StrataCatalog
import StrataCore
import Synchronization

/// A catalog that passes every call to another one, except that ``withKeyLockIfFree(_:_:)`` fails for the keys of
/// ``refused``: a lookup that fails halfway through a look at the catalog (a lock wait, a lost session).
final class RefusingLookupCatalog: CatalogEngine {
    let inner: any CatalogEngine
    let refused = Mutex<Set<String>>([])

    init(_ inner: any CatalogEngine) { self.inner = inner }

    func withKeyLockIfFree<T>(_ key: String, _ body: () throws -> T) throws -> T? {
        if refused.withLock({ $0.contains(key) }) {
            throw StorageError(.lockLost, "the test refused the lookup", key: key)
        }
        return try inner.withKeyLockIfFree(key, body)
    }

    func location(of key: String) throws -> StorageLocation? { try inner.location(of: key) }
    func tier(of key: String) throws -> Tier? { try inner.tier(of: key) }
    func placement(of key: String) throws -> (tier: Tier?, changeCount: UInt64) { try inner.placement(of: key) }
    func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    {
        try inner.placementAndValue(of: key, in: tiers)
    }
    func keyPlacement(of key: String) throws -> KeyPlacement { try inner.keyPlacement(of: key) }
    func locations(prefix: String) throws -> [StorageLocation] { try inner.locations(prefix: prefix) }
    var count: Int { get throws { try inner.count } }
    func unsettledKeys() throws -> [String] { try inner.unsettledKeys() }
    func intent(for key: String) throws -> CatalogIntent? { try inner.intent(for: key) }
    var changeCount: UInt64 { inner.changeCount }
    func recordedPlacement(comparedWith location: StorageLocation) throws -> RecordedPlacement? {
        try inner.recordedPlacement(comparedWith: location)
    }
    func record(_ changes: [CatalogChange], durable: Bool) throws { try inner.record(changes, durable: durable) }
    func withKeyLock<T>(_ key: String, _ body: () throws -> T) throws -> T { try inner.withKeyLock(key, body) }
    func withKeyLocks<T>(_ keys: [String], _ body: () throws -> T) throws -> T { try inner.withKeyLocks(keys, body) }
    func withEveryKeyLock<T>(_ body: () throws -> T) throws -> T { try inner.withEveryKeyLock(body) }
    func withKeyLockForChange<T>(_ key: String, _ body: (_ placement: KeyPlacement?) throws -> T) throws -> T {
        try inner.withKeyLockForChange(key, body)
    }
    func confirmHeld(_ key: String) throws { try inner.confirmHeld(key) }
    func isLockedByCurrentThread(_ key: String) -> Bool { inner.isLockedByCurrentThread(key) }
    func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool {
        try inner.changeIfSettled(key, in: tier, body)
    }
    func stageIfPlaced(_ location: StorageLocation, _ body: () throws -> Void) throws -> Bool {
        try inner.stageIfPlaced(location, body)
    }
    func beginCapture() -> any TierCapture { inner.beginCapture() }
    var isObserved: Bool { inner.isObserved }
    func beginObserving() { inner.beginObserving() }
    func endObserving() { inner.endObserving() }
    func recordRewrite(of keys: [String], in tier: Tier, backend: String) throws {
        try inner.recordRewrite(of: keys, in: tier, backend: backend)
    }
}
