import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// `structuralProblems` (what `strata verify` and `Storage.verify` report for the secrets tier) skipped what it could
/// not read: a manifest or a keyring folder that failed with an I/O error left the keyring "sound". What cannot be
/// read is now a problem, typed and naming its path.
@Suite("SecretStore: a keyring that cannot be read is never taken as sound or empty", .serialized)
struct SecretVerifyFaultTests {
    /// The manifest's open fails, or the listing of the folder (which opens a duplicate of the folder's descriptor:
    /// the fourth open under the folder, after `keyring.json`, the manifest and its anchor).
    @Test(arguments: [false, true])
    func whatCannotBeReadIsAProblem(_ listing: Bool) throws {
        let fixture = try SecretsFixture()
        defer { FaultInjector.shared.reset() }
        let store = try fixture.store()
        try store.set("small", service: "s", account: "a")
        try store.set(String(repeating: "x", count: 2048), service: "s", account: "large")
        let folder = fixture.keyringFolder()
        FaultInjector.shared.startCounting(pathContaining: folder)
        #expect(store.structuralProblems().isEmpty)
        // keyring.json, the manifest, the anchor, the listing, the large item's file.
        #expect(FaultInjector.shared.seenCount(of: .open) == 5)
        FaultInjector.shared.reset()
        if listing {
            FaultInjector.shared.inject(.error(EIO), on: .open, pathContaining: folder, after: 3)
        } else {
            FaultInjector.shared.inject(.error(EIO), on: .open, pathContaining: folder + "/" + ItemManifest.fileName)
        }
        let problems = store.structuralProblems()
        FaultInjector.shared.reset()
        #expect(problems.count == 1, "\(problems)")
        #expect(
            problems.first?.contains(listing ? folder : folder + "/" + ItemManifest.fileName) == true, "\(problems)")
        #expect(store.structuralProblems().isEmpty)
        #expect(try store.get(service: "s", account: "a")?.stringValue == "small")
    }

    /// A capture (the start of a backup) left a keyring folder it could not open out of the capture without a word,
    /// and the backup went on without its secrets; the capture now fails.
    @Test func aKeyringFolderThatCannotBeOpenedFailsTheCapture() throws {
        let fixture = try SecretsFixture()
        defer { FaultInjector.shared.reset() }
        let store = try fixture.store()
        try store.set("small", service: "s", account: "a")
        let failed = try FolderCapture(folder: fixture.directory.appending("failed"))
        FaultInjector.shared.inject(.error(EIO), on: .open, pathContaining: fixture.keyringFolder())
        let error = #expect(throws: StorageError.self) { try store.capture(into: failed, root: fixture.paths.root) }
        FaultInjector.shared.reset()
        #expect(error?.errno == EIO)
        #expect(error?.path == fixture.keyringFolder())
        let capture = try FolderCapture(folder: fixture.directory.appending("capture"))
        #expect(try store.capture(into: capture, root: fixture.paths.root).fileCount > 0)
    }
}
