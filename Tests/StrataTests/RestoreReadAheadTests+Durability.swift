import Foundation
import Strata
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// How a restore makes its staged files durable: each handed to the disk as it is finished, then one flush of them
// all before the staged store is verified and moved into place.
extension RestoreReadAheadTests {
    /// The staging folder's paths, for the injector's filters.
    var staging: String { directory.appending(".strata-restore-restored-") }

    @Test func restoredFilesAreFlushedTogetherAfterTheLastIsWritten() throws {
        let (repository, snapshot, _) = try backedUpStore()
        FaultInjector.shared.startCounting(pathContaining: staging)
        defer { FaultInjector.shared.reset() }
        let report = try Storage.restore(
            snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        let calls = FaultInjector.shared.seenCalls.filter { $0 == .writeback || $0 == .fsync }
        let lastHandedOver = try #require(calls.lastIndex(of: .writeback), "no file was handed to the disk early")
        // Every file (and the capture's description) handed over as it was finished; no flush among them.
        #expect(calls[...lastHandedOver].allSatisfy { $0 == .writeback })
        #expect(lastHandedOver + 1 >= report.fileCount)
        #expect(calls.dropFirst(lastHandedOver + 1).first == .fsync, "the files are flushed before the verification")
    }

    @Test func aFailedFlushOfTheRestoredFilesFailsTheRestoreAndLeavesNoStore() throws {
        let (repository, snapshot, _) = try backedUpStore()
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: staging)
        defer { FaultInjector.shared.reset() }
        try expectFailedRestoreLeavesNoStore(snapshot.id, from: repository, injected: 1)
    }

    @Test func withoutSyncfsEachRestoredFileIsFlushedAndAFailedFlushLeavesNoStore() throws {
        let (repository, snapshot, _) = try backedUpStore()
        // No syncfs (as on Darwin): one fsync per restored file instead.
        FaultInjector.shared.inject(.error(ENOSYS), on: .fsync, pathContaining: staging)
        FaultInjector.shared.startCounting(pathContaining: staging)
        let report = try Storage.restore(
            snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        #expect(FaultInjector.shared.injectedCount == 1)
        #expect(FaultInjector.shared.seenCount(of: .fsync) > report.fileCount)
        FaultInjector.shared.reset()
        try FileManager.default.removeItem(atPath: target)

        // The fifth file's fsync fails.
        FaultInjector.shared.inject(.error(ENOSYS), on: .fsync, pathContaining: staging)
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: staging, after: 4)
        defer { FaultInjector.shared.reset() }
        try expectFailedRestoreLeavesNoStore(snapshot.id, from: repository, injected: 2)
    }

    /// Restores `snapshot`, expecting an I/O error in the staging folder after `injected` faults, and no store or
    /// staging folder left.
    func expectFailedRestoreLeavesNoStore(_ snapshot: String, from repository: BackupRepository, injected: Int) throws {
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(snapshot: snapshot, from: repository, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .io)
        #expect(error?.path?.contains("/.strata-restore-restored-") == true)
        #expect(FaultInjector.shared.injectedCount == injected)
        #expect(try leftovers().isEmpty)
    }
}
