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

/// A FIFO put where a suite's file or its lock file belongs (another program's doing) is refused, typed and naming
/// it, and never waited on: opened blocking, either waited for a writer that never came, and the suite never opened
/// (then read the FIFO as an empty suite).
@Suite("DefaultsStore: a FIFO in a suite file's place")
struct DefaultsSpecialFileTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("root") }
    var folder: String { root + "/" + Tier.defaults.directoryName }
    static let theme = DefaultsKey("theme", default: "")

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-defaults-fifo")
        let store = try DefaultsStore(suite: "app", root: root)
        try store.set("dark", for: Self.theme)
        try store.flush()
    }

    /// Replaces the file at `path` with a FIFO and runs `body` with a watchdog that frees a reader left waiting.
    func withFIFO(at path: String, _ body: () throws -> Void) rethrows {
        #expect(unlink(path) == 0 || errno == ENOENT)
        #expect(mkfifo(path, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: path)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO at \(path)") }
        try body()
    }

    /// Opening the suite and the check refuse it as damage (`corrupt`), naming it.
    @Test func aSuiteFileThatIsAFIFOIsRefused() throws {
        let file = folder + "/app.plist"
        try withFIFO(at: file) {
            let error = #expect(throws: StorageError.self) { _ = try DefaultsStore(suite: "app", root: root) }
            #expect(error?.code == .corrupt && error?.path == file, "\(String(describing: error))")
            let problems = DefaultsStore.unreadableSuites(paths: try StoragePaths(root: root))
            #expect(problems.count == 1 && problems.first?.path == file, "\(problems)")
        }
    }

    /// A write takes the suite's lock: a FIFO there is refused (`invalid-argument`), naming it.
    @Test func aLockFileThatIsAFIFOIsRefused() throws {
        let lock = folder + "/app.plist.lock"
        withFIFO(at: lock) {
            let error = #expect(throws: StorageError.self) {
                let store = try DefaultsStore(suite: "app", root: root)
                try store.set("light", for: Self.theme)
                try store.flush()
            }
            #expect(error?.code == .invalidArgument && error?.path == lock, "\(String(describing: error))")
            #expect(error?.description.contains("not a regular file") == true, "\(String(describing: error))")
        }
    }
}
