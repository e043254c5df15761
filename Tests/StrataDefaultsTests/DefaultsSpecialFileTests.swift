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

/// A FIFO put where a suite's file or its lock file belongs (by another program) is refused, naming it, and never
/// waited on: opened blocking, either waited for a writer that never came, and the suite never opened.
@Suite("DefaultsStore: a FIFO in a suite file's place")
struct DefaultsSpecialFileTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("root") }
    var folder: String { root + "/" + Tier.defaults.directoryName }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-defaults-fifo")
        let store = try DefaultsStore(suite: "app", root: root)
        try store.set("dark", for: DefaultsKey("theme", default: ""))
        try store.flush()
    }

    /// Replaces the file at `path` with a FIFO, runs `body` with a watchdog that frees a reader left waiting.
    func withFIFO(at path: String, _ body: () throws -> Void) rethrows {
        #expect(unlink(path) == 0 || errno == ENOENT)
        #expect(mkfifo(path, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: path)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO at \(path)") }
        try body()
    }

    @Test func aSuiteFileThatIsAFIFOIsRefused() throws {
        let file = folder + "/app.plist"
        withFIFO(at: file) {
            let error = #expect(throws: StorageError.self) { _ = try DefaultsStore(suite: "app", root: root) }
            #expect(error?.code == .invalidArgument && error?.path == file, "\(String(describing: error))")
            #expect(error?.description.contains("not a regular file") == true, "\(String(describing: error))")
        }
    }

    @Test func aLockFileThatIsAFIFOIsRefused() throws {
        let lock = folder + "/app.plist.lock"
        withFIFO(at: lock) {
            let error = #expect(throws: StorageError.self) {
                let store = try DefaultsStore(suite: "app", root: root)
                try store.set("light", for: DefaultsKey("theme", default: ""))
                try store.flush()
            }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.path == lock, "\(String(describing: error))")
        }
    }
}
