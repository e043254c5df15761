/// What ``Storage/migrate(from:overwriting:progress:)`` did: each key of the source copied, found already there (a
/// migration run again after an interruption), or left as a conflict; and how many keys were read back equal.
public struct MigrationReport: Sendable, Hashable, CustomStringConvertible {
    /// What happened to one key.
    public enum Outcome: String, Sendable, Hashable {
        /// Written into the store, in the tier the source keeps it in.
        case copied
        /// The store held the same bytes already: nothing written.
        case alreadyThere = "already-there"
        /// The store held the key otherwise (other bytes, or in another tier: another machine wrote it): left as it
        /// is.
        case conflict
    }

    /// The keys written, in the order written.
    public var copied: [String] = []
    /// The keys the store held with the same bytes already.
    public var alreadyThere: [String] = []
    /// The keys the store holds otherwise (other bytes, or another tier), left as they are (see `overwriting`), and
    /// those changed in the store after they were copied.
    public var conflicts: [String] = []
    /// How many keys were read back from the store equal to what was copied, at the end.
    public var verified = 0
    /// The keys deleted from the source while the migration ran: not copied.
    public var skipped: [String] = []
    /// What the source keeps outside its keys, which a migration does not copy (record collections, other suites
    /// and keyrings, keyring items of other services), each with the verb that moves it.
    public var notMigrated: [String] = []

    /// An empty report.
    public init() {}

    /// Whether everything the source keeps is in the store with the source's bytes: no conflict, every key read
    /// back, nothing outside the keys. Only then may the source be removed.
    public var isComplete: Bool {
        conflicts.isEmpty && notMigrated.isEmpty && verified == copied.count + alreadyThere.count
    }

    public var description: String {
        "\(copied.count) copied, \(alreadyThere.count) already there, \(conflicts.count) conflicts; \(verified) "
            + "verified" + (notMigrated.isEmpty ? "" : "; not migrated: " + notMigrated.joined(separator: "; "))
    }

    /// Moves `key` from the keys copied or found to the conflicts: it changed in the store after it was copied.
    mutating func changedSince(_ key: String) {
        copied.removeAll { $0 == key }
        alreadyThere.removeAll { $0 == key }
        conflicts.append(key)
    }

    mutating func record(_ key: String, _ outcome: Outcome) {
        switch outcome {
        case .copied: copied.append(key)
        case .alreadyThere: alreadyThere.append(key)
        case .conflict: conflicts.append(key)
        }
    }
}
