import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataSecrets

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 18 item 4, the batch's file work: a large batch creates its files on several threads (unnamed, then
/// linked under their temporary names), renames them on several threads, and a set leaves the freeing of the files
/// it replaces to a background thread. Serialized: faults are injected by path and the unnamed-file switch is
/// process-wide.
@Suite("SecretStore: a batch's files", .serialized)
struct SecretBatchFileTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    func writes(_ count: Int, _ value: String) -> [SecretWrite] {
        (0..<count).map { SecretWrite(Secret("\(value) \($0)"), service: "batch", account: "b\($0)") }
    }

    func temporaries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixture.keyringFolder())
            .filter { $0.hasPrefix(AtomicFile.temporaryPrefix) }
    }

    /// A batch over ``AtomicFile/oneByOneFlushLimit`` files creates each unnamed and links it under its temporary
    /// name (Linux), renames every one into place and leaves no temporary; where the system refuses unnamed files,
    /// it creates named ones, as before.
    @Test func aLargeBatchCreatesItsFilesUnnamedOrNamedAndLeavesNoTemporary() throws {
        UnnamedFileSwitch.lock.lock()
        defer { UnnamedFileSwitch.lock.unlock() }
        defer {
            FaultInjector.shared.reset()
            AtomicFile.createsUnnamedFiles = true
        }
        AtomicFile.createsUnnamedFiles = true  // As the system allows: a test before may have refused once.
        let store = try fixture.fileStore()
        let count = 3 * AtomicFile.concurrentFileCalls
        FaultInjector.shared.startCounting(pathContaining: fixture.keyringFolder() + "/")
        try store.set(writes(count, "unnamed"))
        #if os(Linux)
            #expect(FaultInjector.shared.seenCount(of: .link) == count + 1, "every item and the manifest")
        #endif
        #expect(try temporaries().isEmpty)
        // Refused once (as by a file system without O_TMPFILE): named temporaries from then on.
        FaultInjector.shared.inject(
            .error(EOPNOTSUPP), on: .open, pathContaining: fixture.keyringFolder() + "/" + AtomicFile.temporaryPrefix)
        FaultInjector.shared.startCounting(pathContaining: fixture.keyringFolder() + "/")
        try store.set(writes(count, "named"))
        // Threads past the check when the refusal came still link theirs; the rest are named.
        #expect(FaultInjector.shared.seenCount(of: .link) < count)
        #expect(!AtomicFile.createsUnnamedFiles)
        #expect(try temporaries().isEmpty)
        let reader = try fixture.fileStore()
        for index in 0..<count {
            #expect(try reader.get(service: "batch", account: "b\(index)")?.stringValue == "named \(index)")
        }
        #expect(reader.structuralProblems().isEmpty)
    }

    /// Renames on several threads: one failing fails the batch with its error; every item is old or new (the one
    /// whose rename failed old), the manifest is not advanced, no temporary is left, and the next batch works.
    @Test func aRenameFailingInALargeBatchLeavesEveryItemOldOrNew() throws {
        defer { FaultInjector.shared.reset() }
        let store = try fixture.fileStore()
        let count = 5 * AtomicFile.concurrentFileCalls
        try store.set(writes(count, "old"))
        let failing = try store.fileName(ItemIdentity(service: "batch", account: "b17"))
        FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: failing)
        let refused = #expect(throws: StorageError.self) { try store.set(writes(count, "new")) }
        #expect(refused?.errno == EIO)
        #expect(refused?.path?.hasSuffix(failing) == true)
        FaultInjector.shared.reset()
        #expect(try temporaries().isEmpty)
        let reader = try fixture.fileStore()
        for index in 0..<count {
            let value = try reader.get(service: "batch", account: "b\(index)")?.stringValue
            #expect(
                value == "old \(index)" || (index != 17 && value == "new \(index)"), "item \(index): \(value ?? "none")"
            )
        }
        try store.set(writes(count, "after"))
        #expect(try reader.get(service: "batch", account: "b17")?.stringValue == "after 17")
    }

    /// A set keeps the files it replaces open across the renames and closes them on a background thread: once that
    /// thread is done, no descriptor of this process names a replaced (deleted) file of the keyring.
    @Test func aSetLetsGoOfTheFilesItReplaced() throws {
        let store = try fixture.fileStore()
        for round in 0..<20 { try store.set("value \(round)", service: "s", account: "a") }
        #expect(RetiredFiles.pending <= RetiredFiles.pendingLimit)
        RetiredFiles.drain()
        let folder = fixture.keyringFolder()
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }.filter { $0.hasPrefix(folder + "/") && $0.hasSuffix("(deleted)") }
        #expect(held.isEmpty, "\(held)")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "value 19")
    }

    /// A writer of batches of new items killed at any point: every item of an acknowledged batch reads back, each
    /// of the batch under way is absent or whole, nothing reads as damaged or rolled back, and the next store
    /// removes the dead writer's temporaries.
    @Test func aBatchOfNewItemsKilledMidwayLeavesEachItemAbsentOrWhole() throws {
        let count = 40
        try killBatchWriter(fixture, mode: "secrets-batch-new-loop", count: count, rounds: 12) { store, acknowledged in
            #expect(try temporaries().isEmpty)
            for index in 0..<count {
                let done = try store.get(service: "new", account: "g\(acknowledged)-\(index)")?.stringValue
                #expect(done == "value \(acknowledged)", "item \(index)")
                let underWay = try store.get(service: "new", account: "g\(acknowledged + 1)-\(index)")?.stringValue
                #expect(underWay == nil || underWay == "value \(acknowledged + 1)", "item \(index)")
            }
        }
    }
}
