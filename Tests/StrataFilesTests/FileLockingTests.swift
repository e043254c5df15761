import Foundation
import StrataCore
import StrataFiles
import StrataLocalFiles
import StrataTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The per-key locks of the file store: ordering (no self-deadlock, no deadlock between opposite operations),
/// reclamation of lock files, and a lock folder that is a link.
@Suite("FileStore: locks")
struct FileLockingTests {
    /// On every engine: S3 has no locks to wait for, but the same answers.
    @Test(arguments: FileEngineKind.available)
    func copyOntoItselfDoesNothingAndDoesNotWaitForItself(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(lockTimeout: .seconds(1)))
        try store.write(Data("same".utf8), to: "a")
        try store.copy("a", to: "a")
        try store.move("a", to: "a")
        #expect(try store.read("a") == Data("same".utf8))
        let error = #expect(throws: StorageError.self) { try store.copy("missing", to: "missing") }
        #expect(error?.code == .notFound)
        #expect(try store.list() == ["a"])
    }

    @Test func oppositeCopiesNeverDeadlock() throws {
        // A deadlock would show as a lock timeout (after 3 s) instead of waiting forever.
        let fixture = try FilesFixture(
            configuration: FilesConfiguration(durability: .atomicOnly, lockTimeout: .seconds(3)))
        let store = fixture.store
        try store.write(Data("a".utf8), to: "x/a")
        try store.write(Data("b".utf8), to: "y/b")
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let (source, destination) = index % 2 == 0 ? ("x/a", "y/b") : ("y/b", "x/a")
            for _ in 0..<400 {
                do { try store.copy(source, to: destination) } catch {
                    failures.withLock { $0.append("\(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(try store.read("x/a") == store.read("y/b"))
    }

    @Test func lockFilesAreReclaimedAndProcessesNeverOverlap() throws {
        let fixture = try FilesFixture()
        let root = fixture.directory.appending("root")
        let markers = fixture.directory.appending("markers")
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: false)
        let child = try TestExecutables.url(named: "strata-test-child")
        let rounds = 250
        let processes = try (0..<4).map { _ in try ChildProcess(child, ["files-churn", root, "\(rounds)", markers]) }
        let results = processes.map { $0.wait() }
        for result in results {
            #expect(result.standardOutput.hasSuffix("done\n"), "\(result.standardOutput) \(result.standardError)")
            #expect(!result.standardOutput.contains("overlap"), "\(result.standardOutput)")
        }
        let total = try (0..<4).reduce(0) { sum, index in
            sum + (Int(String(decoding: try fixture.store.read("hot-\(index)"), as: UTF8.self)) ?? 0)
        }
        #expect(total == 4 * rounds, "lost updates: two processes were inside one key's exclusive section")
        let locks = try FileManager.default.contentsOfDirectory(atPath: root + "/files/.strata-locks")
        #expect(locks.isEmpty, "\(locks.count) lock files left after \(8 * rounds) distinct keys: \(locks.prefix(5))")
    }

    @Test func aLockFolderThatIsALinkIsRefusedNotFollowed() throws {
        let directory = try TemporaryDirectory(prefix: "strata-locklink")
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(
            atPath: directory.appending("root/files"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory.appending("root/files/.strata-locks"), withDestinationPath: outside)
        let error = #expect(throws: StorageError.self) {
            let store = try FileStore(root: directory.appending("root"))
            try store.write(Data("x".utf8), to: "k")
        }
        #expect(error?.code == .symbolicLink)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }
}
