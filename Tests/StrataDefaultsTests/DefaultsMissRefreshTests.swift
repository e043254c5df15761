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
}
