/// One change of a key, as ``Storage/observe(_:interval:)`` and ``Storage/changes(prefix:interval:)`` deliver it: the
/// key, what happened to it, and where it lives now.
public struct StorageChange: Sendable, Hashable {
    /// What happened to a key.
    public enum Event: Sendable, Hashable {
        /// The key got a value, having none.
        case set
        /// The key got a new value in the tier that held it.
        case updated
        /// The value moved to another tier (``StorageChange/tier``): one change, never a removal and a set.
        case moved(from: Tier)
        /// The key is gone from every tier (`from`: the tier that held it).
        case removed(from: Tier)
    }

    /// The key.
    public var key: String
    /// What happened.
    public var event: Event
    /// Where the key lives now, as the store's catalog records it (its size may be older than the value: ask
    /// ``Storage/location(of:)`` for the tier's); `nil` once removed.
    public var location: StorageLocation?

    /// The tier the key lives in now; `nil` once removed.
    public var tier: Tier? { location?.tier }

    /// A change of `key`.
    public init(key: String, event: Event, location: StorageLocation?) {
        self.key = key
        self.event = event
        self.location = location
    }
}
