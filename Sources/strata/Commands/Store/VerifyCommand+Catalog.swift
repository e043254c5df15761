import Foundation
import Strata

extension VerifyCommand {
    /// The catalog's part of `strata verify`: opens the store through ``Storage`` (which settles the moves crashed
    /// processes left), writes what was settled, repaired or is moving to standard error, and returns the problems
    /// left and the tiers it could not check (a locked secrets tier).
    /// A store without a catalog (never opened through ``Storage``) has nothing to check; a shared store's catalog
    /// is on its server, and always checked.
    static func catalogVerdict(_ paths: StoragePaths, key: KeyProvider?) throws -> (
        problems: [String], unchecked: [String]
    ) {
        let isShared = (try? StoreConfiguration.read(from: paths))??.catalog.isShared == true
        guard isShared || FileManager.default.fileExists(atPath: paths.root + "/catalog") else { return ([], []) }
        let report: CatalogReport
        do {
            report = try Storage(root: paths.root, secretsKey: key).verifyCatalog()
        } catch let error as StorageError {
            // The store does not open (a configuration that names a server it cannot reach, …): a problem to
            // report beside the others, not a reason to report none of them.
            return (["catalog: not checked: \(error)"], [])
        }
        // Notes (moves settled, entries repaired, keys a live process is moving) go to standard error; standard output
        // stays the verdict.
        let notes =
            report.settled.map { "settled: \($0)" } + report.repaired.map { "repaired: \($0)" }
            + report.movingKeys.map { "moving: \($0.escapedForDisplay): a live process is moving it" }
        for line in notes { FileHandle.standardError.write(Data("catalog: \(line)\n".utf8)) }
        let unchecked = Tier.allCases.compactMap { tier in
            report.uncheckedTiers[tier].map { "catalog: keys in \(tier.rawValue) (\($0))" }
        }
        return (report.problems.map { "catalog: \($0)" }, unchecked)
    }
}
