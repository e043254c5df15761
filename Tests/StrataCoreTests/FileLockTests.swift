import Foundation
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("FileLock")
struct FileLockTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func sharedHoldersCoexistAndExcludeWriters() throws {
        let lock = FileLock(path: directory.appending("a.lock"))
        let reader1 = try lock.acquire(.shared, timeout: .nonBlocking)
        let reader2 = try lock.acquire(.shared, timeout: .nonBlocking)
        let error = #expect(throws: StorageError.self) { try lock.acquire(.exclusive, timeout: .nonBlocking) }
        #expect(error?.code == .lockUnavailable)
        #expect(error?.path == lock.path)
        reader1.release()
        reader2.release()
        // A bounded wait, not a single attempt: a released lock stays held while a child that another test's
        // thread is spawning still has the descriptor (between its fork and its exec; see `Timeout.nonBlocking`).
        let writer = try lock.acquire(.exclusive, timeout: .seconds(10))
        #expect(throws: StorageError.self) { try lock.acquire(.shared, timeout: .nonBlocking) }
        writer.release()
        #expect(!writer.isHeld)
        writer.release()  // A second release does nothing.
    }

    @Test func timeoutIsATypedErrorNamingThePath() throws {
        let lock = FileLock(path: directory.appending("t.lock"))
        let held = try lock.acquire(.exclusive)
        let start = ContinuousClock.now
        let error = #expect(throws: StorageError.self) { try lock.acquire(.exclusive, timeout: .seconds(0.1)) }
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(error?.code == .lockTimeout)
        #expect(error?.description.contains(lock.path) == true)
        held.release()
    }

    @Test func waitingTakesTheLockWhenReleased() throws {
        let lock = FileLock(path: directory.appending("w.lock"))
        let held = try lock.acquire(.exclusive)
        // A real thread, not a task: the waiter blocks, and must not starve the test's own executor.
        let outcome = Mutex<Result<Bool, any Error>?>(nil)
        let waiter = Thread {
            let result = Result { try lock.withLock(.exclusive, timeout: .seconds(10)) { true } }
            outcome.withLock { $0 = result }
        }
        waiter.start()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(outcome.withLock { $0 } == nil)
        held.release()
        let deadline = Date().addingTimeInterval(10)
        while outcome.withLock({ $0 }) == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try outcome.withLock { try $0?.get() } == true)
    }

    @Test func withLockReleasesWhenTheBodyThrows() throws {
        struct Failure: Error {}
        let lock = FileLock(path: directory.appending("r.lock"))
        #expect(throws: Failure.self) { try lock.withLock(.exclusive) { throw Failure() } }
        try lock.acquire(.exclusive, timeout: .nonBlocking).release()
    }

    @Test func lockFileInAMissingFolderIsAnIOError() throws {
        let lock = FileLock(path: directory.appending("missing/x.lock"))
        let error = #expect(throws: StorageError.self) { try lock.acquire(.shared) }
        #expect(error?.errno == ENOENT)
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let target = directory.appending("real.lock")
        let link = directory.appending("link.lock")
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let error = #expect(throws: StorageError.self) { try FileLock(path: link).acquire(.exclusive) }
        #expect(error?.code == .symbolicLink)
    }

    @Test func anotherProcessHoldsTheLockUntilKilled() throws {
        let path = directory.appending("cross.lock")
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["hold-lock", path, "exclusive"])
        defer { child.kill(); _ = child.wait() }
        try child.waitForLine { $0 == "locked exclusive" }

        let error = #expect(throws: StorageError.self) {
            try FileLock(path: path).acquire(.exclusive, timeout: .nonBlocking)
        }
        #expect(error?.code == .lockUnavailable)
        #expect(error?.path == path)
        #expect(error?.description.contains(path) == true)
        #expect(throws: StorageError.self) { try FileLock(path: path).acquire(.shared, timeout: .nonBlocking) }

        child.kill(SIGKILL)
        let result = child.wait()
        #expect(result.wasSignalled && result.status == SIGKILL)
        // The kernel dropped the dead holder's lock.
        let held = try FileLock(path: path).acquire(.exclusive, timeout: .seconds(5))
        held.release()
    }

    @Test func aChildSeesOurLockAndSharedLocksCoexistAcrossProcesses() throws {
        let path = directory.appending("ours.lock")
        let child = try TestExecutables.url(named: "strata-test-child")
        let exclusive = try FileLock(path: path).acquire(.exclusive)
        #expect(
            try ChildProcess.run(child, ["try-lock", path, "shared"]).standardOutput == "refused lock-unavailable\n")
        exclusive.release()
        let shared = try FileLock(path: path).acquire(.shared)
        #expect(try ChildProcess.run(child, ["try-lock", path, "shared"]).standardOutput == "acquired\n")
        #expect(
            try ChildProcess.run(child, ["try-lock", path, "exclusive"]).standardOutput == "refused lock-unavailable\n")
        shared.release()
        // Waits at most 10 s: see `sharedHoldersCoexistAndExcludeWriters` on a child spawned meanwhile.
        #expect(try ChildProcess.run(child, ["try-lock", path, "exclusive", "10"]).standardOutput == "acquired\n")
    }
}
