import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A suite file replaced by a FIFO (another program's doing): opening the suite, reading a snapshot and the check
/// refuse it, typed and naming it, instead of waiting for a writer (an open of the suite did before).
@Suite("DefaultsStore: a suite file that is a FIFO")
struct DefaultsSpecialFileTests {
    @Test func aSuiteFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        let fixture = try Fixture()
        do {
            let store = try fixture.store(durability: .atomicOnly)
            try store.set(3, for: .launches)
        }
        let suite = fixture.suitePath()
        try FileManager.default.removeItem(atPath: suite)
        #expect(mkfifo(suite, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: suite)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO") }
        let error = #expect(throws: StorageError.self) { _ = try fixture.store().value(for: .launches) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.path == suite)
        let problems = DefaultsStore.unreadableSuites(paths: try StoragePaths(root: fixture.root))
        #expect(problems.count == 1 && problems.first?.path == suite, "\(problems)")
    }
}
