import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataSecrets

/// Issue 18 item 4: a warm get of an item whose file stayed unchanged for ``FileStamp/settlingTime`` takes its
/// sealed bytes from memory, vouched for by the file's stamp — and never once the file or the manifest changed.
@Suite("SecretStore: settled reads")
struct SecretSettledReadTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    /// What happens to the item's file (or the manifest) after a store kept it.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case replacedByAnotherProcess, olderCopyRenamedOver, olderCopyWrittenInPlace, anotherItemCopiedOver, deleted
        case manifestDeleted, manifestEditedInPlace
        var testDescription: String { rawValue }
    }

    /// Every change is seen by the store that kept the item: a new value, `rolled-back`, `corrupt` or absent —
    /// exactly what a store that never read the item before sees.
    @Test(arguments: Change.allCases)
    func aKeptItemIsNeverServedOnceItsFileChanges(_ change: Change) throws {
        let store = try fixture.fileStore()
        let folder = fixture.keyringFolder()
        // "revoked" and "current" have one length: an older copy has the very size of the current file.
        try store.set("revoked", service: "shared", account: "p-0")
        let path = folder + "/" + (try store.fileName(ItemIdentity(service: "shared", account: "p-0")))
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        try store.set("current", service: "shared", account: "p-0")
        try store.set("another", service: "shared", account: "other")
        Thread.sleep(forTimeInterval: FileStamp.settlingTime + 0.1)
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "current")  // Kept, settled.
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "current")  // From memory.
        let manifest = folder + "/" + ItemManifest.fileName
        var expected: String?
        var code: StorageError.Code?
        switch change {
        case .replacedByAnotherProcess:
            let child = try TestExecutables.url(named: "strata-test-child")
            let process = try ChildProcess(child, ["secrets-write-accounts", fixture.paths.root, testKeyHex, "p", "1"])
            _ = try process.waitForLine { $0 == "done" }
            #expect(process.wait().status == 0)
            expected = "secret p-0"
        case .olderCopyRenamedOver:
            try old.write(to: URL(fileURLWithPath: path + ".copy"))
            #expect(rename(path + ".copy", path) == 0)
            code = .rolledBack
        case .olderCopyWrittenInPlace:
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: old)
            try handle.close()
            code = .rolledBack
        case .anotherItemCopiedOver:
            let other = folder + "/" + (try store.fileName(ItemIdentity(service: "shared", account: "other")))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: other, toPath: path)
            code = .corrupt
        case .deleted:
            try FileManager.default.removeItem(atPath: path)
        case .manifestDeleted:
            try FileManager.default.removeItem(atPath: manifest)
            code = .rolledBack
        case .manifestEditedInPlace:
            var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
            bytes[bytes.count - 1] ^= 1
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: manifest))
            try handle.write(contentsOf: bytes)
            try handle.close()
            code = .corrupt
        }
        for reader in [store, try fixture.store()] {
            if let code {
                let refused = #expect(throws: StorageError.self) { try reader.get(service: "shared", account: "p-0") }
                #expect(refused?.code == code, "\(change)")
            } else {
                #expect(try reader.get(service: "shared", account: "p-0")?.stringValue == expected, "\(change)")
            }
        }
    }

    /// A stamp vouches only for a file whose last change was a settling time before the read began: a file
    /// changed more recently may change again within the same tick of the clock the kernel stamps files with, on
    /// an inode number given again, and look the same.
    @Test func onlyAStampOlderThanTheSettlingTimeVouches() throws {
        let path = fixture.directory.appending("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let stamp = FileStamp(try Sys.lstat(path))
        let now = Date().timeIntervalSince1970
        #expect(!stamp.isSettled(readStart: now))
        #expect(!stamp.isSettled(readStart: now + FileStamp.settlingTime - 0.5))
        #expect(stamp.isSettled(readStart: now + FileStamp.settlingTime + 0.01))
        // The modification time counts too: one set into the future (touch -d) never vouches early.
        let future = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        #expect(
            futimens(
                future.fileDescriptor,
                [timespec(tv_sec: Int(now) + 100, tv_nsec: 0), timespec(tv_sec: Int(now) + 100, tv_nsec: 0)]) == 0)
        try future.close()
        #expect(!FileStamp(try Sys.lstat(path)).isSettled(readStart: now + FileStamp.settlingTime + 0.01))
    }

    /// A value too large to keep whole is read from its file on every get, with the same result.
    @Test func largeItemsAreReadFromTheirFileAndStillMatch() throws {
        let store = try fixture.store()
        let large = String(repeating: "k", count: OpenedItem.wholeFileLimit * 2)
        try store.set(large, service: "s", account: "large")
        Thread.sleep(forTimeInterval: FileStamp.settlingTime + 0.1)
        #expect(try store.get(service: "s", account: "large")?.stringValue == large)
        #expect(try store.get(service: "s", account: "large")?.stringValue == large)
        let fileName = try store.fileName(ItemIdentity(service: "s", account: "large"))
        let kept = store.keyMaterial.withLock { $0.openedItems[fileName] }
        #expect(kept?.stamp == nil)
        #expect((kept?.sealed.count ?? .max) < OpenedItem.wholeFileLimit)
    }
}
