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

/// A reader never concludes that a key is absent from a view a concurrent move made stale: the catalog read, then
/// the tier. A child process moves one key through every tier without pause; this process reads it thousands of
/// times, by every read of `Storage`, and it is never missing.
@Suite("Storage: reads beside a process moving the key")
struct CatalogReadRaceTests {
    @Test func aKeyMovingBetweenTiersIsNeverReadAsAbsent() throws {
        let directory = try TemporaryDirectory(prefix: "strata-read-race")
        let root = directory.appending("store")
        let storage = try openStorage(root)
        let mover = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["storage-moves", root, "0"],
            environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
        defer {
            mover.kill(SIGKILL)
            _ = mover.wait()
        }
        _ = try mover.waitForLine(timeout: 60) { $0.hasPrefix("ack ") }
        var misses: [String] = []
        for round in 0..<2_000 {
            let read: String
            let found: Bool
            switch round % 5 {
            case 0: (read, found) = ("data", try storage.data(for: "moved") != nil)
            case 1: (read, found) = ("contains", try storage.contains("moved"))
            case 2: (read, found) = ("location", try storage.location(of: "moved") != nil)
            case 3: (read, found) = ("keys", try storage.keys(prefix: "mov").contains("moved"))
            default: (read, found) = ("value", try storage.value(Data.self, for: "moved") != nil)
            }
            if !found {
                let now = try storage.catalog.location(of: "moved").map { "\($0.tier)" } ?? "none"
                let holders = try tiersHolding("moved", in: storage)
                misses.append("\(read) at round \(round) (catalog now \(now), held by \(holders))")
            }
        }
        let moves = mover.lines.filter { $0.hasPrefix("ack ") }.count
        #expect(misses.isEmpty, "\(misses.count) reads missed the key: \(misses.prefix(10))")
        #expect(moves > 20, "the child made only \(moves) moves meanwhile")
    }
}
