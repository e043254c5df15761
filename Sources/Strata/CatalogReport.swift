public import StrataCore

/// What ``Storage/verifyCatalog()`` found: the interrupted moves it (or the store's opening) settled, the
/// problems left, and what it could not check.
public struct CatalogReport: Sendable, Hashable {
    /// Interrupted moves that were settled, at open or by the check, in the order they were settled.
    public var settled: [SettledMove] = []
    /// Entries that named a tier which did not hold the key, repaired by a read, a listing or the check, in the
    /// order they were repaired. A key with no copy left is gone: something outside Strata removed it.
    public var repaired: [RepairedEntry] = []
    /// What is still wrong; empty when the catalog and the tiers agree.
    public var problems: [CatalogProblem] = []
    /// Keys whose move a live process is making now: neither settled nor checked.
    public var movingKeys: [String] = []
    /// Tiers that could not be read (a locked secrets tier, an unreachable server), with why: keys catalogued
    /// there were not checked, and copies there were not counted.
    public var uncheckedTiers: [Tier: StorageError] = [:]

    /// Creates an empty report.
    public init() {}

    /// Whether nothing is left to fix.
    public var isSound: Bool { problems.isEmpty }

    /// One line per settled move, repaired entry, problem, moving key and unchecked tier, for people.
    public var lines: [String] {
        settled.map { "settled: \($0)" } + repaired.map { "repaired: \($0)" } + problems.map { "problem: \($0)" }
            + movingKeys.map { "moving: \($0.escapedForDisplay): a live process is moving it" }
            + Tier.allCases.compactMap { tier in uncheckedTiers[tier].map { "unchecked: \(tier.rawValue): \($0)" } }
    }
}
