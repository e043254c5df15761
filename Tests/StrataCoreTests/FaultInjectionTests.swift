import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults injected at the system-call seam. Serialized: the injector is global to the process (each plan is
/// limited to this test's own folder, so other suites running meanwhile are not affected).
@Suite("Fault injection at the syscall seam", .serialized)
struct FaultInjectionTests {
    let directory: TemporaryDirectory
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-faults")
        FaultInjector.shared.reset()
    }

    @Test(arguments: [
        (SystemCall.write, ENOSPC, StorageError.Code.noSpace), (.fsync, EIO, .io), (.rename, EACCES, .permissionDenied),
        (.open, EMFILE, .io),
    ])
    func failedReplaceKeepsTheOldContent(_ call: SystemCall, _ code: Int32, _ expected: StorageError.Code) throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("target")
        try AtomicFile.write(Data("old".utf8), to: path)
        FaultInjector.shared.inject(.error(code), on: call, pathContaining: directory.path)
        let error = #expect(throws: StorageError.self) { try AtomicFile.write(Data("new".utf8), to: path) }
        #expect(error?.code == expected)
        #expect(error?.errno == code)
        #expect(error?.path == path)
        #expect(FaultInjector.shared.injectedCount == 1)
        FaultInjector.shared.reset()
        #expect(try AtomicFile.read(path) == Data("old".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["target"], "left behind: \(names)")
    }

    /// The calls that used to bypass the seam (pwrite of a header patch, stat of a linked root, the
    /// no-follow stat of a key's file) now reach the injector and fail typed.
    @Test func formerlyUnseenCallsReachTheInjector() throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("patched")
        try AtomicFile.write(Data("old".utf8), to: path)
        let patch = #expect(throws: StorageError.self) {
            try AtomicFile.write(to: path) { writer in
                try writer.write(Data("abcd".utf8))
                FaultInjector.shared.inject(.error(EIO), on: .write, pathContaining: directory.path)
                try writer.write([0x41], at: 0)
            }
        }
        #expect(patch?.errno == EIO)
        FaultInjector.shared.reset()
        #expect(try AtomicFile.read(path) == Data("old".utf8))

        let real = directory.appending("real")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        let link = directory.appending("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        FaultInjector.shared.inject(.error(EIO), on: .stat, pathContaining: link)
        let root = #expect(throws: StorageError.self) { _ = try StoragePaths(root: link) }
        #expect(root?.errno == EIO)
        FaultInjector.shared.reset()

        let paths = try StoragePaths(root: real)
        FaultInjector.shared.inject(.error(EACCES), on: .stat, pathContaining: real + "/files/k")
        let key = #expect(throws: StorageError.self) { _ = try paths.path(for: "k", in: .files, createParents: true) }
        #expect(key?.code == .permissionDenied)
        #expect(FaultInjector.shared.injectedCount == 1)
    }

    @Test func interruptedCallsAreRetried() throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("eintr")
        for call in [SystemCall.open, .write, .fsync, .rename] {
            FaultInjector.shared.inject(.interrupt, on: call, pathContaining: directory.path, times: 3)
        }
        try AtomicFile.write(Data("content".utf8), to: path)
        #expect(FaultInjector.shared.injectedCount == 12)
        FaultInjector.shared.reset()
        #expect(try AtomicFile.read(path) == Data("content".utf8))
    }

    @Test func shortWritesAreContinued() throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("short")
        let payload = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        FaultInjector.shared.inject(.shortWrite(7), on: .write, pathContaining: directory.path, times: 50)
        try AtomicFile.write(payload, to: path)
        FaultInjector.shared.reset()
        #expect(try AtomicFile.read(path) == payload)
    }

    @Test func lockFailureIsTyped() throws {
        defer { FaultInjector.shared.reset() }
        let lock = FileLock(path: directory.appending("l.lock"))
        FaultInjector.shared.inject(.error(ENOLCK), on: .lock, pathContaining: directory.path)
        let error = #expect(throws: StorageError.self) { try lock.acquire(.exclusive) }
        #expect(error?.errno == ENOLCK)
        #expect(error?.path == lock.path)
        FaultInjector.shared.reset()
        // A bounded wait: a child spawned by another test meanwhile can hold a copy of a descriptor for a moment.
        try lock.acquire(.exclusive, timeout: .seconds(10)).release()
    }

    @Test func everyStepOfAReplaceFailsCleanly() throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("steps")
        try AtomicFile.write(Data("old".utf8), to: path)
        // Count the seam's calls for one replace, then fail each of them in turn.
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        try AtomicFile.write(Data("old".utf8), to: path)
        let counts = SystemCall.allCases.map { ($0, FaultInjector.shared.seenCount(of: $0)) }.filter { $0.1 > 0 }
        FaultInjector.shared.reset()
        #expect(counts.count >= 4)
        for (call, count) in counts {
            for step in 0..<count {
                FaultInjector.shared.inject(.error(EIO), on: call, pathContaining: directory.path, after: step)
                do {
                    try AtomicFile.write(Data("new".utf8), to: path)
                    // A failure after the rename (the folder fsync) reports an error but the new file is in place.
                } catch let error as StorageError {
                    #expect(error.errno == EIO)
                }
                FaultInjector.shared.reset()
                let content = try AtomicFile.read(path)
                #expect(content == Data("old".utf8) || content == Data("new".utf8), "\(call) step \(step)")
                try AtomicFile.write(Data("old".utf8), to: path)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["steps"])
    }
}
