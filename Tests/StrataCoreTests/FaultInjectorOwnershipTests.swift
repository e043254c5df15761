import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The injector is one per process, and the test targets share one process: a test's `reset()` and counts must
/// touch only its own plans. (A full-suite run failed `interruptedCallsAreRetried` and an atomic-batch test
/// when another suite's `reset()` cleared their plans, or its faults raised their `injectedCount`.)
@Suite("Fault injector: each task's plans are its own")
struct FaultInjectorOwnershipTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-fault-owner") }

    @Test func anotherTasksResetAndFaultsLeaveThisTasksPlansAndCounts() async throws {
        defer { FaultInjector.shared.reset() }
        let mine = directory.appending("mine")
        let theirs = directory.appending("theirs")
        FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: mine)
        FaultInjector.shared.startCounting(pathContaining: mine)
        // Another test, meanwhile: it arms a fault of its own, suffers it, and resets.
        try await Task.detached {
            FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: theirs)
            #expect(throws: StorageError.self) { try AtomicFile.write(Data("x".utf8), to: theirs) }
            #expect(FaultInjector.shared.injectedCount == 1)
            FaultInjector.shared.reset()
            try AtomicFile.write(Data("x".utf8), to: theirs)
        }.value
        #expect(FaultInjector.shared.injectedCount == 0)
        #expect(FaultInjector.shared.seenCount(of: .rename) == 0)
        let error = #expect(throws: StorageError.self) { try AtomicFile.write(Data("y".utf8), to: mine) }
        #expect(error?.errno == EIO)
        #expect(FaultInjector.shared.injectedCount == 1)
        #expect(FaultInjector.shared.seenCount(of: .rename) == 1)
    }
}
