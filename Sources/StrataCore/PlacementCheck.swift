/// Whether a key still belongs to a backend: asked by a backend that acknowledges a write before it makes it (one
/// that coalesces writes), so that its late write cannot bring back a value that another process has meanwhile
/// moved to another tier or deleted.
///
/// The owner that routes keys to backends and records where each lives (`Storage`, through
/// ``StorageCatalog/placementCheck(for:)``) installs it in the backend's configuration. The backend asks in two
/// steps, both for changes that set a value (a removal is always written):
/// - when it stages the change: ``claims(_:)``, whether the owner is making this change now (it holds the key's
///   lock). Only such a change is checked later; a change made around the owner (the tier's own API) is not.
/// - when it writes the change, under its own file lock and just before the write: ``isPlaced(_:)``, whether the
///   key is still placed with the backend. A claimed change whose key is no longer placed there is dropped.
///
/// Both answers come from memory and the owner's log, without waiting for a key's lock: the backend asks while
/// it holds its file lock, which a process moving the key may be waiting for while it holds the key's lock.
public struct PlacementCheck: Sendable {
    let claim: @Sendable (String) -> Bool
    let placement: @Sendable (String) throws -> Bool

    /// Creates a check from its two answers.
    /// - Parameters:
    ///   - claims: Whether the owner is making a change of the key now; called when the change is staged.
    ///   - isPlaced: Whether the key is still placed with the backend; called just before a claimed change is
    ///     written. It must not wait for a lock the owner holds while it waits for the backend.
    public init(
        claims: @escaping @Sendable (_ key: String) -> Bool,
        isPlaced: @escaping @Sendable (_ key: String) throws -> Bool
    ) {
        self.claim = claims
        self.placement = isPlaced
    }

    /// Whether the owner is making a change of `key` now (so the change is checked by ``isPlaced(_:)`` before a
    /// late write).
    public func claims(_ key: String) -> Bool { claim(key) }

    /// Whether `key` is still placed with the backend, so a pending change of it may be written.
    /// - Throws: ``StorageError`` when the owner cannot tell (its log cannot be read): the write is not made, and
    ///   the change stays pending.
    public func isPlaced(_ key: String) throws -> Bool { try placement(key) }
}
