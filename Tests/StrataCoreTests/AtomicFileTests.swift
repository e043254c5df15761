import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("AtomicFile")
struct AtomicFileTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func writesReadsAndReplaces() throws {
        let path = directory.appending("f")
        #expect(try AtomicFile.read(path) == nil)
        try AtomicFile.write(Data("one".utf8), to: path)
        #expect(try AtomicFile.read(path) == Data("one".utf8))
        try AtomicFile.write(Data("two, longer".utf8), to: path, durability: .atomicOnly)
        #expect(try AtomicFile.read(path) == Data("two, longer".utf8))
        try AtomicFile.write(Data(), to: path)
        #expect(try AtomicFile.read(path) == Data())
        #expect(try leftovers().isEmpty)
    }

    @Test func permissionsAreExactWhateverTheUmask() throws {
        let path = directory.appending("p")
        let old = umask(0o077)
        defer { umask(old) }
        try AtomicFile.write(Data("x".utf8), to: path, permissions: 0o640)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        try AtomicFile.write(Data("x".utf8), to: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
    }

    /// A durable write creates its temporary without a name (Linux, `O_TMPFILE`) and names it only once its content
    /// is on disk: the file's `fsync` then writes the file alone, not the folder's new entry too, which the folder's
    /// own `fsync` after the rename writes anyway (one disk write fewer per replacement). An `.atomicOnly` write
    /// syncs nothing and keeps the one `open` of a named temporary.
    @Test func aDurableWriteNamesItsTemporaryOnlyOnceItIsOnDisk() throws {
        UnnamedFileSwitch.lock.lock()  // The process-wide switch stays as it is meanwhile.
        defer { UnnamedFileSwitch.lock.unlock() }
        let path = directory.appending("sealed")
        try AtomicFile.write(Data("first".utf8), to: path)  // The first proves that this process can name one.
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        defer { FaultInjector.shared.reset() }
        try AtomicFile.write(Data("second".utf8), to: path)
        let durable = FaultInjector.shared.seenCalls
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        try AtomicFile.write(Data("third".utf8), to: path, durability: .atomicOnly)
        let atomicOnly = FaultInjector.shared.seenCalls
        #if os(Linux)
            if AtomicFile.createsUnnamedFiles {  // Another test may have made the system refuse them.
                // The folder, the unnamed file, its lock, its content, its fsync; then its name, the rename, the folder's fsync.
                #expect(durable == [.open, .open, .lock, .write, .fsync, .link, .rename, .fsync], "\(durable)")
            }
        #endif
        #expect(atomicOnly == [.open, .open, .lock, .write, .rename], "\(atomicOnly)")
        #expect(try AtomicFile.read(path) == Data("third".utf8))
        #expect(try leftovers().isEmpty)
    }

    /// A durable write whose temporary cannot be named once sealed (or renamed, or the folder synced) throws a typed
    /// error, keeps the old content and leaves no temporary, named or not.
    @Test(arguments: [SystemCall.link, .rename, .fsync])
    func aDurableWriteThatFailsLateKeepsTheOldFile(call: SystemCall) throws {
        UnnamedFileSwitch.lock.lock()  // The process-wide switch stays as it is meanwhile.
        defer { UnnamedFileSwitch.lock.unlock() }
        let path = directory.appending("late")
        try AtomicFile.write(Data("old".utf8), to: path)
        try AtomicFile.write(Data("old".utf8), to: path)  // Named by then: the next names its temporary late.
        #if os(Linux)
            // Another test may have made the system refuse unnamed files: then there is no late naming to fail.
            if call == .link, !AtomicFile.createsUnnamedFiles { return }
        #else
            if call == .link { return }
        #endif
        // The third matching call of the write: the temporary's fsync, then the folder's, for `.fsync`.
        FaultInjector.shared.inject(
            .error(EIO), on: call, pathContaining: directory.path, after: call == .fsync ? 1 : 0)
        defer { FaultInjector.shared.reset() }
        #expect(throws: StorageError.self) { try AtomicFile.write(Data("new".utf8), to: path) }
        FaultInjector.shared.reset()
        let kept = try AtomicFile.read(path)
        // A failed folder fsync comes after the rename: the new content is in place, not yet durable.
        #expect(kept == Data(call == .fsync ? "new".utf8 : "old".utf8))
        #expect(try leftovers().isEmpty)
        #expect(try deletedFilesStillOpen().isEmpty)
    }

    /// Where the system refuses unnamed files, a durable write creates a named temporary, as before.
    @Test func aDurableWriteFallsBackOnANamedTemporary() throws {
        UnnamedFileSwitch.lock.lock()
        defer { UnnamedFileSwitch.lock.unlock() }
        let path = directory.appending("named")
        FaultInjector.shared.inject(
            .error(EOPNOTSUPP), on: .open, pathContaining: directory.appending(AtomicFile.temporaryPrefix))
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        defer {
            FaultInjector.shared.reset()
            AtomicFile.createsUnnamedFiles = true
        }
        AtomicFile.createsUnnamedFiles = true
        try AtomicFile.write(Data("one".utf8), to: path)
        try AtomicFile.write(Data("two".utf8), to: path)
        #expect(FaultInjector.shared.seenCount(of: .link) == 0)
        #expect(try AtomicFile.read(path) == Data("two".utf8))
        #expect(try leftovers().isEmpty)
    }

    /// A folder removed under a write fails the naming of its unnamed temporary with `ENOENT`, as a system without
    /// `/proc` would: this write fails, and the process goes on creating unnamed files (the switch is for the whole
    /// process; a write in one removed folder must not turn it off for every other).
    @Test func aFolderRemovedUnderAWriteKeepsUnnamedFilesOn() throws {
        #if os(Linux)
            UnnamedFileSwitch.lock.lock()
            defer { UnnamedFileSwitch.lock.unlock() }
            AtomicFile.createsUnnamedFiles = true
            let path = directory.appending("removed")
            try AtomicFile.write(Data("one".utf8), to: path)  // Proves that this process can name one.
            try AtomicFile.write(Data("two".utf8), to: path)
            FaultInjector.shared.inject(.error(ENOENT), on: .link, pathContaining: directory.path)
            defer { FaultInjector.shared.reset() }
            #expect(throws: StorageError.self) { try AtomicFile.write(Data("three".utf8), to: path) }
            #expect(FaultInjector.shared.injectedCount == 1, "the write named its temporary late")
            #expect(AtomicFile.createsUnnamedFiles)
            FaultInjector.shared.startCounting(pathContaining: directory.path)
            try AtomicFile.write(Data("four".utf8), to: path)
            #expect(FaultInjector.shared.seenCount(of: .link) == 1)
            #expect(try AtomicFile.read(path) == Data("four".utf8))
            #expect(try leftovers().isEmpty)
        #endif
    }

    /// With `retiringReplaced`, the file a write replaces is opened before the rename, so the rename only drops a name
    /// and the file is freed when ``RetiredFiles`` closes that descriptor on its background queue: freeing a file
    /// (a discard on a file system mounted with `discard`) is not on the writer's path. Nothing stays open after.
    @Test(arguments: [AtomicFile.Durability.durable, .atomicOnly])
    func aReplacedFileIsFreedOffTheWritersPathWhenAsked(durability: AtomicFile.Durability) throws {
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.write(Data("old".utf8), in: folder, name: "r")
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        defer { FaultInjector.shared.reset() }
        try AtomicFile.write(Data("new".utf8), in: folder, name: "r", durability: durability, retiringReplaced: true)
        let calls = FaultInjector.shared.seenCalls
        let rename = try #require(calls.firstIndex(of: .rename))
        #expect(calls[rename - 1] == .open, "the replaced file is opened just before the rename: \(calls)")
        RetiredFiles.drain()
        #expect(try AtomicFile.read(directory.appending("r")) == Data("new".utf8))
        #expect(try deletedFilesStillOpen().isEmpty)
        // Nothing to hold when there is no file yet.
        try AtomicFile.write(Data("first".utf8), in: folder, name: "fresh", retiringReplaced: true)
        #expect(try AtomicFile.read(directory.appending("fresh")) == Data("first".utf8))
        #expect(try leftovers().isEmpty)
    }

    @Test func streamingWriteThatThrowsLeavesTheOldFile() throws {
        struct Stop: Error {}
        let path = directory.appending("s")
        try AtomicFile.write(Data("old".utf8), to: path)
        #expect(throws: Stop.self) {
            try AtomicFile.write(to: path) { writer in
                try writer.write(Data(repeating: 1, count: 100_000))
                throw Stop()
            }
        }
        #expect(try AtomicFile.read(path) == Data("old".utf8))
        #expect(try leftovers().isEmpty)
    }

    @Test func streamingWriteCountsBytes() throws {
        let path = directory.appending("big")
        var total = 0
        try AtomicFile.write(to: path) { writer in
            for index in 0..<64 { try writer.write(Data(repeating: UInt8(index), count: 65_536)) }
            total = writer.count
        }
        #expect(total == 64 * 65_536)
        #expect(try AtomicFile.read(path)?.count == total)
    }

    @Test func readRefusesLinksAndOversizeFiles() throws {
        let path = directory.appending("target")
        try AtomicFile.write(Data(count: 1000), to: path)
        try FileManager.default.createSymbolicLink(atPath: directory.appending("link"), withDestinationPath: path)
        let link = #expect(throws: StorageError.self) { try AtomicFile.read(directory.appending("link")) }
        #expect(link?.code == .symbolicLink)
        let big = #expect(throws: StorageError.self) { try AtomicFile.read(path, maximumSize: 999) }
        #expect(big?.code == .tooLarge)
        #expect(big?.path == path)
    }

    @Test func writingOverALinkReplacesTheLinkNotItsTarget() throws {
        let outside = directory.appending("outside")
        try AtomicFile.write(Data("precious".utf8), to: outside)
        let link = directory.appending("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try AtomicFile.read(outside) == Data("precious".utf8))
        #expect(try AtomicFile.read(link) == Data("new".utf8))
    }

    @Test func missingFolderIsATypedError() throws {
        let error = #expect(throws: StorageError.self) {
            try AtomicFile.write(Data("x".utf8), to: directory.appending("no/such/folder/f"))
        }
        #expect(error?.errno == ENOENT)
        #expect(error?.path?.hasSuffix("no/such/folder/f") == true)
    }

    @Test func staleTemporariesOfDeadProcessesAreRemoved() throws {
        let dead = directory.appending(AtomicFile.temporaryPrefix + "999999999-abc")
        let live = directory.appending(AtomicFile.temporaryPrefix + "\(getppid())-abc")
        _ = FileManager.default.createFile(atPath: dead, contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: live, contents: Data("x".utf8))
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path) == 1)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    @Test func aTemporarySomeoneHoldsIsKeptWhateverItsPid() throws {
        // A writer in another pid namespace, or on another machine sharing the folder: its pid means nothing
        // here, its lock does.
        let held = directory.appending(AtomicFile.temporaryPrefix + "999999998-held")
        _ = FileManager.default.createFile(atPath: held, contents: Data("x".utf8))
        let fd = open(held, O_RDONLY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path) == 0)
        #expect(FileManager.default.fileExists(atPath: held))
    }

    /// The acceptance test: a child replaces one file over and over and is killed with SIGKILL at random
    /// moments; every time, the file holds exactly one complete version.
    @Test func killedWriterNeverLeavesATornFile() throws {
        let path = directory.appending("torture")
        let size = 48 * 1024
        let child = try TestExecutables.url(named: "strata-test-child")
        var generator = SeededGenerator(seed: 0x5EED)
        var kills = 0
        var highest = 0
        let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init) ?? 200
        while kills < rounds {
            let process = try ChildProcess(child, ["atomic-replace", path, "\(size)", "\(highest + 1)"])
            // Wait for at least one acknowledged write so the kill lands mid-stream, then a random delay.
            let first = try process.waitForLine { $0.hasPrefix("wrote ") }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.015, using: &generator))
            process.kill(SIGKILL)
            _ = process.wait()
            kills += 1
            let acknowledged =
                process.lines.compactMap { Int($0.dropFirst("wrote ".count)) }.max()
                ?? Int(first.dropFirst("wrote ".count))!
            let data = try #require(try AtomicFile.read(path))
            let version = try #require(
                VersionedContent.version(of: data, size: size), "torn file after kill \(kills): \(data.count) bytes")
            // The file holds the last acknowledged version or the one after it (written, not yet acknowledged).
            #expect(
                version == acknowledged || version == acknowledged + 1, "version \(version) after ack \(acknowledged)")
            highest = max(version, acknowledged)
        }
        AtomicFile.removeStaleTemporaries(in: directory.path)
        #expect(try leftovers().isEmpty)
    }

    /// The files of this test's folder that a descriptor of this process still holds after their removal.
    private func deletedFilesStillOpen() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)
            guard let target, target.hasPrefix(directory.path), target.hasSuffix(" (deleted)") else { return nil }
            return target
        }
    }

    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(AtomicFile.temporaryPrefix)
        }
    }
}
