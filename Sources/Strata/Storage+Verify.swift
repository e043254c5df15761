// Checking that the catalog and the tiers agree: what `strata verify` reports for the engine itself.
import StrataCatalog
import Synchronization

extension Storage {
    /// Settles the moves crashed processes left, then checks the catalog against every tier.
    ///
    /// Opening a store already settles interrupted moves; this reports what was settled since (at open, by a
    /// put of a key with an interrupted move, or now), the entries repaired since (an entry naming a tier that does
    /// not hold its key is removed, and the key recorded where a copy is, if one is: by a read, a listing, or now),
    /// and what is still wrong:
    /// - a move that could not be settled (a tier is locked or unreachable), with the error that stopped it;
    /// - a catalogued key whose tier no longer holds a value and whose entry could not be repaired (with the error);
    /// - a key held by several tiers;
    /// - a key catalogued under a backend that is not registered, or not active, for its tier.
    ///
    /// Keys a live process is moving are listed in ``CatalogReport/movingKeys`` and not checked. A tier that
    /// cannot be listed (a locked secrets tier) is listed in ``CatalogReport/uncheckedTiers``; keys catalogued
    /// there are not checked. Each settled move is reported by one call only.
    ///
    /// ```swift
    /// let report = try storage.verifyCatalog()
    /// report.lines.forEach { print($0) }
    /// if !report.isSound { exit(1) }
    /// ```
    /// - Returns: The report.
    /// - Throws: ``/StrataCore/StorageError`` when the catalog cannot be read.
    public func verifyCatalog() throws -> CatalogReport {
        var report = try settleInterruptedMoves()
        report.settled = settledMoves.withLock { moves in
            defer { moves.removeAll() }
            return moves
        }
        let skipped = Set((report.movingKeys + report.problems.map(\.key)).map { ExactString($0) })
        var holders: [ExactString: [Tier]] = [:]
        var listed: Set<Tier> = []
        for tier in Tier.allCases where registry.hasBackend(for: tier) {
            do {
                for key in try registry.backend(for: tier).keys() {
                    holders[ExactString(key), default: []].append(tier)
                }
                listed.insert(tier)
            } catch let error as StorageError {
                report.uncheckedTiers[tier] = error
            }
        }
        let registrations = registry.registrations
        for location in try catalog.locations() where !skipped.contains(ExactString(location.key)) {
            let active = registrations.first { $0.tier == location.tier && $0.isActive }?.name
            if active != location.backend {
                let isRegistered = registrations.contains { $0.tier == location.tier && $0.name == location.backend }
                let kind: CatalogProblem.Kind =
                    if let active, isRegistered {
                        .inactiveBackend(tier: location.tier, name: location.backend, active: active)
                    } else {
                        .unregisteredBackend(tier: location.tier, name: location.backend)
                    }
                report.problems.append(CatalogProblem(key: location.key, kind: kind))
            } else if listed.contains(location.tier) {
                let tiers = holders[ExactString(location.key)] ?? []
                guard !tiers.contains(location.tier) else { continue }
                // Checked again under the key's lock (it may have been written since the listing), then repaired.
                do {
                    try repairIfStale(location.key)
                } catch let error as StorageError {
                    report.problems.append(
                        CatalogProblem(
                            key: location.key, kind: .missingValue(tier: location.tier, foundIn: tiers), error: error))
                }
            }
        }
        report.repaired = repairedEntries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
        for (key, tiers) in holders.sorted(by: { $0.key < $1.key }) where tiers.count > 1 && !skipped.contains(key) {
            report.problems.append(CatalogProblem(key: key.string, kind: .copiesInSeveralTiers(tiers)))
        }
        return report
    }
}
