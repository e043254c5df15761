import Foundation
import Strata

extension InspectCommand {
    /// The catalog's part of `strata verify`: opens the store through ``Storage`` (which settles the moves crashed
    /// processes left), writes what was settled and what could not be checked to standard error, and returns the
    /// problems left.
    /// A store without a catalog (never opened through ``Storage``) has nothing to check.
    static func catalogProblems(_ paths: StoragePaths, _ parsed: ParsedArguments) throws -> [String] {
        guard FileManager.default.fileExists(atPath: paths.root + "/catalog") else { return [] }
        let hasPassphrase =
            parsed.value("--passphrase-file") != nil || ProcessInfo.processInfo.environment["STRATA_PASSPHRASE"] != nil
        // Only an existing keyring is unlocked: a verify must not create one.
        let unlocks =
            try hasPassphrase && parsed.value("--keyring") ?? "default" == "default"
            && SecretStore(keyring: "default", paths: paths).keyringExists
        let key: KeyProvider? = unlocks ? .passphrase(try StoreAccess.passphrase(parsed)) : nil
        let report: CatalogReport
        do {
            report = try Storage(root: paths.root, secretsKey: key).verifyCatalog()
        } catch let error as StorageError {
            // The store does not open (a configuration that names a server it cannot reach, …): a problem to
            // report beside the others, not a reason to report none of them.
            return ["catalog: not checked: \(error)"]
        }
        // Notes (moves settled, tiers not checked) go to standard error; standard output stays the verdict.
        for line in report.lines where !line.hasPrefix("problem: ") {
            FileHandle.standardError.write(Data("catalog: \(line)\n".utf8))
        }
        return report.problems.map { "catalog: \($0)" }
    }
}
