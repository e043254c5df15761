public import StrataCore

/// A move between tiers that a process started and did not finish (it crashed, or was killed), and what
/// settling it did.
///
/// ``Storage`` settles such moves when it opens a store, and again in ``Storage/verifyCatalog()``; each one it
/// settled is reported here.
public struct SettledMove: Sendable, Hashable, CustomStringConvertible {
    /// What settling did.
    public enum Outcome: String, Sendable, Hashable {
        /// The move had been recorded (committed): the new copy is the value, and the old copy was removed.
        case finished
        /// The move had not been recorded: the old copy (or none, for a new key) is the value, and whatever
        /// reached the new tier was removed.
        case undone
    }

    /// The key that was moving.
    public var key: String
    /// The tier it was moving from, or `nil` for a key that had no value yet.
    public var from: Tier?
    /// The tier it was moving to.
    public var to: Tier
    /// What settling did.
    public var outcome: Outcome

    /// Creates a report of one settled move.
    public init(key: String, from: Tier?, to: Tier, outcome: Outcome) {
        self.key = key
        self.from = from
        self.to = to
        self.outcome = outcome
    }

    /// The tier that holds the key's value now.
    public var tier: Tier? { outcome == .finished ? to : from }

    public var description: String {
        let origin = from?.rawValue ?? "nothing"
        switch outcome {
        case .finished:
            return "\(key.shortenedForDisplay()): the move \(origin) -> \(to.rawValue) was recorded; finished it "
                + "(removed the copy in \(origin))"
        case .undone:
            return "\(key.shortenedForDisplay()): the move \(origin) -> \(to.rawValue) was not recorded; undid it "
                + "(removed the copy in \(to.rawValue))"
        }
    }
}
