/// Where the catalog places a key at one instant: the tier that holds it, and the tier it is moving to while a
/// move is under way or was left unsettled by a crash.
public struct KeyPlacement: Sendable, Hashable {
    /// The tier that holds the key's value, or `nil` when the catalog does not place it.
    public var tier: Tier?
    /// The tier a move is taking the key to, or `nil` when no move is pending.
    public var movingTo: Tier?
    /// Whether a `Storage` operation of this process is changing the key now (it holds the key's lock): whatever
    /// it writes, it records itself.
    public var isBeingChanged: Bool

    /// Creates a placement.
    public init(tier: Tier?, movingTo: Tier? = nil, isBeingChanged: Bool = false) {
        self.tier = tier
        self.movingTo = movingTo
        self.isBeingChanged = isBeingChanged
    }

    /// Whether the key is placed in, or moving to, `tier`.
    public func isPlaced(in tier: Tier) -> Bool { self.tier == tier || movingTo == tier }
}
