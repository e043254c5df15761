import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// The byte-level face (what `Storage` reads through) never answers a miss from a stale memory: a key another
/// process wrote since this store last looked is found at once, without waiting for the file watcher.
@Suite("DefaultsStore: a miss looks at the file first")
struct DefaultsMissRefreshTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func aKeyAnotherProcessWroteIsFoundAtOnceWithoutAWatcher() throws {
        let store = try fixture.store("shared", watching: false)
        #expect(try store.data(for: "theme") == nil)
        let child = try TestExecutables.url(named: "strata-test-child")
        for round in 0..<3 {
            let process = try ChildProcess(
                child, ["defaults-set", fixture.root, "shared", "theme-\(round)", "dark-\(round)", "immediate"])
            _ = try process.waitForLine(timeout: 60) { $0 == "set" }
            _ = process.wait()
            #expect(try store.contains("theme-\(round)"), "round \(round)")
            #expect(try store.data(for: "theme-\(round)") != nil, "round \(round)")
            #expect(try store.metadata(for: "theme-\(round)") != nil, "round \(round)")
        }
        #expect(try store.data(for: "never-set") == nil)
    }

    /// A key another process changed (it was already in this store's memory) reads as changed at once, without a
    /// watcher: every Strata writer bumps the suite's change counter once its write is in place, and a read that finds
    /// the counter moved reads the file first. (Only a miss looked at the file: a hit answered the old value until the
    /// watcher came by.)
    @Test func aValueAnotherProcessChangedReadsChangedAtOnce() throws {
        let store = try fixture.store("shared", watching: false)
        let child = try TestExecutables.url(named: "strata-test-child")
        for round in 0..<4 {
            let process = try ChildProcess(
                child, ["defaults-set", fixture.root, "shared", "theme", "dark-\(round)", "immediate"])
            _ = try process.waitForLine(timeout: 60) { $0 == "set" }
            _ = process.wait()
            #expect(try store.data(for: "theme") == Data("dark-\(round)".utf8), "round \(round)")
            #expect(store.object(forKey: "theme") == .string("dark-\(round)"), "round \(round)")
        }
        // This process's own writes leave nothing to catch up with.
        try store.set(.string("mine"), forKey: "theme")
        try store.flush()
        #expect(store.object(forKey: "theme") == .string("mine"))
    }

    /// A write another process acknowledged is read at once while this store's watcher reloads the suite on its own
    /// thread: the change counter is recorded as seen only with the view it describes. (The watcher recorded it
    /// before reading the file, so a read on another thread took its memory as current and missed the key.)
    @Test func aWriteAnotherProcessAcknowledgedIsReadWhileTheWatcherReloads() throws {
        let store = try fixture.store("shared", watching: true)
        let writer = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["defaults-ack-loop", fixture.root, "shared", "0"])
        defer {
            writer.kill(SIGKILL)
            _ = writer.wait()
        }
        _ = try writer.waitForLine(timeout: 60) { $0.hasPrefix("ack ") }
        var misses = Set<Int>()
        var missedReads = 0
        var reads = 0
        // Two seconds of reading, longer on a busy machine until a hundred reads were made (a minute at most).
        let started = Date()
        while Date().timeIntervalSince(started) < 2 || (Date().timeIntervalSince(started) < 60 && reads <= 100) {
            guard let last = writer.lines.last(where: { $0.hasPrefix("ack ") }), let acked = Int(last.dropFirst(4))
            else { continue }
            reads += 1
            if store.object(forKey: "key-\(acked)") != .integer(Int64(acked)) {
                missedReads += 1
                misses.insert(acked)
            }
        }
        #expect(
            misses.isEmpty,
            "\(missedReads) of \(reads) reads missed \(misses.count) acknowledged writes: \(misses.sorted().prefix(10))"
        )
        #expect(reads > 100)
    }
}
