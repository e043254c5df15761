import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// Moves between tiers under SIGKILL and under four processes writing the same keys, with real processes.
@Suite("Storage: moves across processes and crashes")
struct StorageProcessTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let environment = ["STRATA_SECRETS_KEY": testSecretsKeyHex]
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage-process")
    }

    static var kills: Int { Int(ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"] ?? "") ?? 200 }

    /// A child puts one key through the facade, cycling it through all four tiers, and is killed with SIGKILL at a
    /// random moment, 200 times. After each kill the key reads as the last acknowledged value or the one in
    /// flight, and exactly one tier holds it.
    @Test func sigkillDuringMovesLosesNothingAndDuplicatesNothing() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        var generator = SystemRandomNumberGenerator()
        var next = 0
        var checked = 0
        for round in 0..<Self.kills {
            let process = try ChildProcess(child, ["storage-moves", root, "\(next)"], environment: environment)
            // Wait for a first acknowledgement (so the kill lands inside the loop), then a random pause.
            _ = try process.waitForLine(timeout: 60) { $0.hasPrefix("ack") }
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            process.kill(SIGKILL)
            let result = process.wait()
            #expect(result.wasSignalled, "round \(round): the child ended by itself: \(result.standardError)")
            let acknowledged = process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()
            let last = try #require(acknowledged)
            let storage = try openStorage(root)
            let value = try storage.data(for: "moved")
            #expect(
                value == StorageWorkload.moveValue(last) || value == StorageWorkload.moveValue(last + 1),
                "round \(round): read \(value.map { String(decoding: $0, as: UTF8.self) } ?? "nothing") after ack \(last)"
            )
            let holders = try tiersHolding("moved", in: storage)
            #expect(holders.count == 1, "round \(round): the key is in \(holders)")
            #expect(holders.first == (try storage.catalog.location(of: "moved")?.tier))
            #expect(try storage.catalog.unsettledKeys().isEmpty, "round \(round): a move was left unsettled")
            next = last + 2
            checked += 1
        }
        #expect(checked == Self.kills)
    }

    /// Another process sets preferences and flushes them: each reads back at once here, through the catalog and
    /// the defaults tier's watcher, by bytes and by type.
    @Test func aPreferenceAnotherProcessFlushedReadsBackAtOnce() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let storage = try openStorage(root)
        for round in 0..<5 {
            let process = try ChildProcess(
                child, ["storage-put", root, "theme-\(round)", "dark-\(round)"], environment: environment)
            _ = try process.waitForLine(timeout: 60) { $0 == "ack" }
            #expect(try storage.data(for: "theme-\(round)") == Data("dark-\(round)".utf8), "round \(round)")
            #expect(try storage.value(String.self, for: "theme-\(round)") == "dark-\(round)", "round \(round)")
            _ = process.wait()
        }
    }

    /// Four processes put the same 50 keys three times each, their sizes alternating across the 1 MiB defaults
    /// budget and their kinds between preference and credential. Every key ends in exactly one tier, holding a
    /// value from some process's last round.
    @Test func fourProcessesMovingTheSameKeysEndInOneTierEach() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let rounds = 3
        _ = try openStorage(root)  // Create the store once, before the race.
        let processes = try (0..<4).map {
            try ChildProcess(child, ["storage-contend", root, "\($0)", "\(rounds)"], environment: environment)
        }
        for process in processes {
            let result = process.wait()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("done"))
        }
        let storage = try openStorage(root)
        for key in 0..<50 {
            let holders = try tiersHolding("c-\(key)", in: storage)
            #expect(holders.count == 1, "c-\(key) is in \(holders)")
            let value = try #require(try storage.data(for: "c-\(key)"))
            let lastValues = (0..<4).map { StorageWorkload.contendedWrite(process: $0, round: rounds - 1, key: key).0 }
            #expect(lastValues.contains(value), "c-\(key) holds a value from no process's last round")
            #expect(holders.first == (try storage.location(of: "c-\(key)")?.tier))
        }
        #expect(try storage.catalog.unsettledKeys().isEmpty)
    }
}
