public import StrataCore

/// Something ``Storage/verifyCatalog()`` found wrong between the catalog and the tiers, with the key it concerns
/// and how to fix it.
///
/// ```swift
/// for problem in try storage.verifyCatalog().problems {
///     if case .copiesInSeveralTiers(let tiers) = problem.kind { print(problem.key, tiers) }
/// }
/// ```
public struct CatalogProblem: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// A move a crashed process left could not be settled (a tier is locked or unreachable); ``error`` says
        /// why. Until it settles, the key may have a copy in both tiers; its next put, move or delete settles it.
        case unsettledMove(from: Tier?, to: Tier)
        /// The catalog says `tier` holds the key, it does not, and the entry could not be repaired (``error`` says
        /// why; an entry that can be is repaired, and reported in ``CatalogReport/repaired``). `foundIn` lists the
        /// tiers that do hold a copy (empty when none does).
        case missingValue(tier: Tier, foundIn: [Tier])
        /// Several tiers hold a copy of the key, in the order of `Tier.allCases`; reads go to the
        /// catalogued one (or, for a key the catalog does not know, are refused as a conflict).
        case copiesInSeveralTiers([Tier])
        /// The catalog records the key under a backend that is not registered for its tier: nothing can read it there.
        case unregisteredBackend(tier: Tier, name: String)
        /// The catalog records the key under a registered backend that is not the tier's active one (`active`):
        /// reads go to the active backend, which does not hold it.
        case inactiveBackend(tier: Tier, name: String, active: String)
    }

    /// The key concerned.
    public var key: String
    /// What is wrong.
    public var kind: Kind
    /// The error that stopped Strata from fixing it itself, when there was one.
    public var error: StorageError?

    /// Creates a problem report.
    public init(key: String, kind: Kind, error: StorageError? = nil) {
        self.key = key
        self.kind = kind
        self.error = error
    }

    /// What to do about it.
    public var recovery: String {
        switch kind {
        case .unsettledMove:
            return "Make the tiers reachable (unlock secrets, start the records server) and open the store again, "
                + "or put, move or delete the key"
        case .missingValue(_, let foundIn) where !foundIn.isEmpty:
            return "Move the key back where the catalog says, or delete it and put it again"
        case .missingValue:
            return "Delete the key (its value is gone) and put it again"
        case .copiesInSeveralTiers:
            return "Delete the stale copy through its tier's own API, or delete the key (every copy goes) and put it "
                + "again"
        case .unregisteredBackend(let tier, let name), .inactiveBackend(let tier, let name, _):
            return "Register the \(tier.rawValue) backend '\(name.escapedForDisplay)' and make it active, or delete "
                + "the key and put it again"
        }
    }

    public var description: String {
        let what: String
        switch kind {
        case .unsettledMove(let from, let to):
            what = "a move \(from?.rawValue ?? "nothing") -> \(to.rawValue) left by a crashed process is unsettled"
        case .missingValue(let tier, let foundIn):
            what =
                "the catalog says \(tier.rawValue) holds it, and it does not"
                + (foundIn.isEmpty ? "; no tier does" : "; found in " + foundIn.map(\.rawValue).joined(separator: ", "))
        case .copiesInSeveralTiers(let tiers):
            what = "copies in " + tiers.map(\.rawValue).joined(separator: ", ")
        case .unregisteredBackend(let tier, let name):
            what = "catalogued under the \(tier.rawValue) backend '\(name.escapedForDisplay)', which is not registered"
        case .inactiveBackend(let tier, let name, let active):
            what =
                "catalogued under the \(tier.rawValue) backend '\(name.escapedForDisplay)', which is not active "
                + "(the active one is '\(active.escapedForDisplay)')"
        }
        return "\(key.shortenedForDisplay()): \(what)" + (error.map { ": \($0)" } ?? "") + ". \(recovery)"
    }
}
