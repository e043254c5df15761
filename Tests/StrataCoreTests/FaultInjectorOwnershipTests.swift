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

    /// A reset that finds nothing left disarms the seam; another task arming at that moment must stay armed. (A
    /// full-suite run failed `aLargeBatchCreatesItsFilesUnnamedOrNamedAndLeavesNoTemporary`: a reset's disarm landed
    /// after the batch test armed its fault, and the fault never fired.) A thread outside any task resets (nothing of
    /// its own) while this test arms, many times: after each round this test's plan is there, so the seam must be
    /// armed.
    @Test func aResetNeverDisarmsAPlanArmedAtTheSameTime() {
        defer { FaultInjector.shared.reset() }
        let path = directory.appending("race")
        var disarmed = 0
        for _ in 0..<2_000 {
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            DispatchQueue.global().async(group: done) {
                start.wait()
                FaultInjector.shared.reset()
            }
            start.signal()
            FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: path)
            done.wait()
            if !FaultInjector.isArmed { disarmed += 1 }
            FaultInjector.shared.reset()
        }
        #expect(disarmed == 0, "the seam was disarmed with a plan armed in \(disarmed) of 2,000 rounds")
    }
}
