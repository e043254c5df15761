import Foundation
import StrataCore
import StrataDefaults
import StrataSystem
import StrataTestSupport
import Testing

/// What one durable set costs in system calls, counted through the seam (counts, which a loaded machine does not blur
/// as it blurs time). Every durable set rewrites the suite, so each call it makes beyond the write itself is paid on
/// every set: the `defaults/` folder is resolved from the root once per write (not once per step), and checking that
/// the file is still the one this store wrote just before (its stamp is not settled yet) is one read into one buffer,
/// not a full read that then looks for growth.
@Suite("DefaultsStore: the system calls of a durable set")
struct DefaultsWriteCostTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test(arguments: [DefaultsConfiguration.Durability.durable, .atomicOnly])
    func aSetResolvesTheFolderOnceAndOpensEachFileOnce(durability: DefaultsConfiguration.Durability) throws {
        UnnamedFileSwitch.lock.lock()  // The process-wide switch stays as it is meanwhile.
        defer { UnnamedFileSwitch.lock.unlock() }
        let store = try fixture.store(durability: durability)
        let count = DefaultsKey<Int>("count", default: 0)
        for index in 0..<50 { try store.set("value \(index)", for: DefaultsKey<String>("key.\(index)", default: "")) }
        let sets = 10
        FaultInjector.shared.startCounting(pathContaining: fixture.root)
        defer { FaultInjector.shared.reset() }
        for value in 1...sets { try store.set(value, for: count) }
        let calls = FaultInjector.shared.seenCalls
        func seen(_ call: SystemCall) -> Int { calls.count { $0 == call } }
        // Per set: the root and `defaults/` (once), the lock file, the suite file (compared with what was written),
        // the temporary file and the suite file it replaces (held across the rename, freed in the background).
        // (Reads are not counted: they carry no path to tell this test's from others'.)
        // `FileLock` takes a lock again on a fresh open of its file when the first try finds it busy for a moment (a
        // lock timeout makes it non-blocking) or the file replaced: one more open and one more lock, which is not
        // what this test counts.
        let lockRetries = seen(.lock) - 2 * sets
        #expect(lockRetries >= 0 && lockRetries <= 2, "\(calls)")
        #expect(seen(.open) - lockRetries == 6 * sets, "\(calls)")
        #expect(seen(.stat) == 3 * sets, "\(calls)")  // The stamp before and after the write, the lock's check.
        #expect(seen(.fsync) == (durability == .durable ? 2 * sets : 0), "\(calls)")
        #expect(seen(.rename) == sets, "\(calls)")
        #if os(Linux)
            // A durable set's temporary is named once it is on disk (see AtomicFile); none otherwise.
            if AtomicFile.createsUnnamedFiles {
                #expect(seen(.link) == (durability == .durable ? sets : 0), "\(calls)")
            }
        #endif
        // The suite file replaced is opened just before each rename: the rename frees nothing on the writer's path.
        let renames = calls.indices.filter { calls[$0] == .rename }
        #expect(renames.allSatisfy { $0 > 0 && calls[$0 - 1] == .open }, "\(calls)")
        #expect(try store.value(for: count) == sets)
        let reopened = try fixture.store("standard")
        #expect(try reopened.value(for: count) == sets)
        #expect(try reopened.value(for: DefaultsKey<String>("key.49", default: "")) == "value 49")
    }
}
