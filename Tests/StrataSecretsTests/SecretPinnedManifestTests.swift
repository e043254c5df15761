import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataSecrets

/// Issue 37: a get just after a set takes the manifest from memory, vouched for by the manifest file held open
/// since it was read (``PinnedFile``), instead of reading the anchor and the manifest again — and never once the
/// manifest changed, however soon after the set it changes.
@Suite("SecretStore: the manifest held open")
struct SecretPinnedManifestTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    /// What happens to the manifest (which holds the small items) right after a store read it.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case replacedByAnotherProcess, olderCopyRenamedOver, olderCopyWrittenInPlace, editedInPlace, deleted
        var testDescription: String { rawValue }
    }

    /// Every change, made within the settling time (no stamp vouches yet), is seen by the store holding the
    /// manifest open: a new value, `rolled-back` or `corrupt` — what a store that never read it sees.
    @Test(arguments: Change.allCases)
    func aHeldManifestIsNeverServedOnceTheFileChanges(_ change: Change) throws {
        let store = try fixture.store()
        let manifest = fixture.keyringFolder() + "/" + ItemManifest.fileName
        // "revoked" and "current" have one length: the older manifest has the very size of the current one.
        try store.set("revoked", service: "shared", account: "p-0")
        let old = try Data(contentsOf: URL(fileURLWithPath: manifest))
        try store.set("current", service: "shared", account: "p-0")
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "current")  // Read and held.
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "current")  // Through the pin.
        #expect(store.keyMaterial.withLock { $0.manifestCache?.pin } != nil)
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
            try old.write(to: URL(fileURLWithPath: manifest + ".copy"))
            #expect(rename(manifest + ".copy", manifest) == 0)
            code = .rolledBack
        case .olderCopyWrittenInPlace:
            // Same inode, same size, and likely the same tick: only the bytes tell.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: manifest))
            try handle.write(contentsOf: old)
            try handle.close()
            code = .rolledBack
        case .editedInPlace:
            var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
            bytes[bytes.count - 1] ^= 1
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: manifest))
            try handle.write(contentsOf: bytes)
            try handle.close()
            code = .corrupt
        case .deleted:
            try FileManager.default.removeItem(atPath: manifest)
            code = .rolledBack
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

    /// After the first get that follows a set, gets open neither the manifest nor its anchor: one `fstatat` and
    /// one `pread` of the file held open.
    @Test func getsAfterTheFirstOpenNoFileOfTheKeyring() throws {
        let store = try fixture.store()
        try store.set("value", service: "s", account: "a")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "value")
        FaultInjector.shared.startCounting(pathContaining: fixture.keyringFolder())
        defer { FaultInjector.shared.reset() }
        for _ in 0..<10 { #expect(try store.get(service: "s", account: "a")?.stringValue == "value") }
        #expect(FaultInjector.shared.seenCount(of: .open) == 0, "\(FaultInjector.shared.seenCalls)")
    }

    /// Each read of a new manifest lets the file held before go (its descriptor closes with it): a store holds
    /// one manifest open at most, however many sets it makes.
    @Test func theManifestHeldBeforeIsLetGo() throws {
        let store = try fixture.store()
        try store.set("0", service: "s", account: "a")
        _ = try store.get(service: "s", account: "a")
        weak let first = store.keyMaterial.withLock { $0.manifestCache?.pin }
        #expect(first != nil)
        for round in 1...3 {
            try store.set("\(round)", service: "s", account: "a")
            #expect(try store.get(service: "s", account: "a")?.stringValue == "\(round)")
        }
        #expect(first == nil)
    }
}
