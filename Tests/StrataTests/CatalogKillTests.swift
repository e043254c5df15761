import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child puts and deletes catalogued keys through `Storage` and through every tier's own API (``TierChurn``) and is
/// killed with SIGKILL at a random instant, 200 times: after each kill the store opens, its catalog has no problem,
/// and every key holds the state after its last acknowledged operation or after the one in flight, in exactly one
/// tier (or none, when deleted).
@Suite("Storage: SIGKILL during tier-level writes of catalogued keys")
struct CatalogKillTests {
    @Test func sigkillDuringTierWritesLeavesTheCatalogTrue() throws {
        let directory = try TemporaryDirectory(prefix: "strata-catalog-kill")
        let child = try TestExecutables.url(named: "strata-test-child")
        let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init) ?? 200
        var generator = SystemRandomNumberGenerator()
        var reached = 0
        for round in 0..<rounds {
            let root = directory.appending("store-\(round)")
            _ = try openStorage(root)
            let process = try ChildProcess(
                child, ["tier-churn", root], environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
            _ = try process.waitForLine(timeout: 60) { $0.hasPrefix("ack ") }
            usleep(UInt32.random(in: 0..<150_000, using: &generator))
            process.kill(SIGKILL)
            _ = process.wait()
            let acknowledged = process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()!
            reached = max(reached, acknowledged)
            let storage = try openStorage(root)
            let report = try storage.verifyCatalog()
            #expect(report.problems.isEmpty, "round \(round): \(report.lines)")
            // An entry left naming a tier that no longer holds its key can only be the in-flight removal's, killed
            // between the tier's delete and its record.
            let interrupted =
                TierChurn.operation(acknowledged + 1) == .tierDelete ? [TierChurn.key(acknowledged + 1)] : []
            #expect(report.repaired.allSatisfy { interrupted.contains($0.key) }, "round \(round): \(report.lines)")
            #expect(try storage.catalog.unsettledKeys().isEmpty, "round \(round)")
            let done = TierChurn.state(after: acknowledged + 1)
            let inFlight = TierChurn.state(after: acknowledged + 2)
            for key in TierChurn.keys {
                let holders = try tiersHolding(key, in: storage)
                let value = try storage.data(for: key)
                let actual = value.map { TierChurn.Holding(tier: holders.first ?? .files, value: $0) }
                #expect(holders.count == (value == nil ? 0 : 1), "round \(round), \(key): in \(holders)")
                let expected = "\(String(describing: done[key])) or \(String(describing: inFlight[key]))"
                #expect(
                    actual == done[key] || actual == inFlight[key],
                    "round \(round), \(key) after ack \(acknowledged): \(String(describing: actual)), expected \(expected)"
                )
                #expect(try storage.location(of: key)?.tier == (value == nil ? nil : holders.first))
            }
            try? FileManager.default.removeItem(atPath: root)
        }
        // The kills reached well into the churn: every kind of operation was interrupted.
        #expect(reached >= 20, "the child never got past operation \(reached)")
    }
}
