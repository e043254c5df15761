import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// Issue 33 item 3, the defaults tier: a reader in another process than the writer (a long-lived store refreshing,
/// a store opened afresh, the snapshot and the check without a store) never misses a key that was durable before
/// it read, and never takes the suite for damaged, while the writer replaces the file under its lock.
@Suite("DefaultsStore: readers beside a writer in another process")
struct DefaultsConcurrentReadTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func readersNeverMissADurableKeyNorMoveTheSuiteAside() throws {
        let paths = try StoragePaths(root: fixture.root)
        let reader = try fixture.store("shared")
        let writer = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["defaults-ack-loop", fixture.root, "shared", "0"])
        defer { writer.kill(SIGKILL) }
        _ = try writer.waitForLine { $0.hasPrefix("ack ") }
        func acknowledged() -> Int {
            writer.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? -1
        }
        var missing: [String] = []
        var rounds = 0
        while acknowledged() < 600, rounds < 100_000 {
            rounds += 1
            let durable = acknowledged()  // Every key up to this one was durable before the reads below began.
            try reader.refresh()
            let fresh = try DefaultsStore(
                suite: "shared", paths: paths, configuration: DefaultsConfiguration(watchesExternalChanges: false))
            let snapshot = try DefaultsStore.snapshot(suite: "shared", paths: paths)
            for index in 0...durable {
                let key = "key-\(index)"
                if reader.object(forKey: key) == nil { missing.append("refresh \(key) (durable \(durable))") }
                if fresh.object(forKey: key) == nil { missing.append("open \(key) (durable \(durable))") }
                if snapshot[ExactString(key)] == nil { missing.append("snapshot \(key) (durable \(durable))") }
            }
            let unreadable = DefaultsStore.unreadableSuites(paths: paths)
            if !unreadable.isEmpty { missing.append("check: \(unreadable)") }
        }
        writer.kill(SIGKILL)
        _ = writer.wait()
        #expect(acknowledged() >= 600, "the writer wrote meanwhile (\(rounds) rounds)")
        #expect(missing.isEmpty, "\(missing.count) misses: \(missing.prefix(5))")
        #expect(reader.recoveries.isEmpty, "nothing moved aside: \(reader.recoveries)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/defaults")
            .filter { $0.contains(".corrupt-") }
        #expect(aside.isEmpty)
    }
}
