/// What ``Storage/migrate(from:overwriting:progress:)`` did: each key of the source copied, found already there (a
/// migration run again after an interruption), or left as a conflict; and how many keys were read back equal.
public struct MigrationReport: Sendable, Hashable, CustomStringConvertible {
    /// What happened to one key.
    public enum Outcome: String, Sendable, Hashable {
        /// Written into the store, in the tier the source keeps it in.
        case copied
        /// The store held the same bytes already: nothing written.
        case alreadyThere = "already-there"
        /// The store held other bytes under the key (another machine wrote it): left as they are.
        case conflict
    }

    /// The keys written, in the order written.
    public var copied: [String] = []
    /// The keys the store held with the same bytes already.
    public var alreadyThere: [String] = []
    /// The keys the store holds with other bytes, left as they are (see `overwriting`).
    public var conflicts: [String] = []
    /// How many keys were read back from the store equal to the source's, at the end.
    public var verified = 0

    /// An empty report.
    public init() {}

    /// Whether every key of the source is in the store with the source's bytes.
    public var isComplete: Bool { conflicts.isEmpty && verified == copied.count + alreadyThere.count }

    public var description: String {
        "\(copied.count) copied, \(alreadyThere.count) already there, \(conflicts.count) conflicts; \(verified) "
            + "verified"
    }

    mutating func record(_ key: String, _ outcome: Outcome) {
        switch outcome {
        case .copied: copied.append(key)
        case .alreadyThere: alreadyThere.append(key)
        case .conflict: conflicts.append(key)
        }
    }
}
