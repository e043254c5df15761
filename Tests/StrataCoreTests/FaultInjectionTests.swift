import Foundation
import StrataCore
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
        try lock.acquire(.exclusive, timeout: .nonBlocking).release()
    }

    @Test func everyStepOfAReplaceFailsCleanly() throws {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("steps")
        try AtomicFile.write(Data("old".utf8), to: path)
        // Count the seam's calls for one replace, then fail each of them in turn.
        FaultInjector.shared.startCounting()
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
