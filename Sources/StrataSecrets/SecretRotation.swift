/// What ``SecretStore/rotate(with:)`` did.
public struct SecretRotation: Sendable, Hashable {
    /// How many items were re-sealed under the new data key (an interrupted rotation counts only those it had
    /// left).
    public var resealed: Int
    /// Item files that opened under neither key (damaged before the rotation), left as they were.
    public var unreadable: [String]

    /// A report of `resealed` items and the `unreadable` files left as they were.
    public init(resealed: Int, unreadable: [String]) {
        self.resealed = resealed
        self.unreadable = unreadable
    }
}
