import Foundation
import Strata
import StrataTestSupport
import Testing

// A capture whose secret or suite file is damaged fails the restore, naming the tier and the file: a restore that
// succeeds promises that every catalogued key reads, and a damaged tier must never pass for a locked one (secrets)
// or an unflushed one (defaults).
extension CaptureRestoreTests {
    /// Restores `forged` into a fresh target and expects a typed failure naming `tier`, with nothing left behind.
    func expectRestoreFails(_ forged: FolderCapture, tier: Tier, key: KeyProvider?) throws -> StorageError? {
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: forged, to: target, secretsKey: key)
        }
        #expect(error?.tier == tier)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
        return error
    }

    @Test func aTamperedSecretFailsTheRestoreWhenTheKeyIsGiven() throws {
        let storage = try filledStore()
        for index in 0..<5 {
            try storage.put(Data("secret \(index)".utf8), for: "s/\(index)", as: descriptorForTier[.secrets]!)
        }
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        // Small secrets live in the keyring's manifest, larger ones in item files: damage whichever holds them.
        let item = try #require(
            folder.files.first { $0.path.hasSuffix(".item") } ?? folder.files.first { $0.path.hasSuffix(".manifest") }
        ).path
        let forged = try capture(folder, editing: item)
        let error = try expectRestoreFails(forged, tier: .secrets, key: testSecretsKey)
        #expect(error?.code == .corrupt || error?.code == .authenticationFailed)
        // A wrong key is an error too, not a tier taken for a locked one.
        let wrong = KeyProvider.inMemory(Secret(Data(repeating: 0x11, count: 32)))
        _ = try expectRestoreFails(folder, tier: .secrets, key: wrong)
        // Without the key nothing can be read, so nothing is checked: the restore says which secrets it did not read.
        let target = directory.appending("unread")
        let report = try Storage.restore(from: forged, to: target, secretsKey: nil)
        #expect(report.uncheckedKeys.count == 6)
    }

    @Test func aSuiteThatDoesNotDecodeFailsTheRestore() throws {
        let storage = try filledStore()
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        let suite = "defaults/standard.plist"
        #expect(folder.files.contains { $0.path == suite })
        let forged = try capture(folder, editing: suite) { bytes in
            for index in bytes.indices { bytes[index] = 0x7F }
        }
        let error = try expectRestoreFails(forged, tier: .defaults, key: testSecretsKey)
        #expect(error?.code == .corrupt)
        #expect(error?.path?.hasSuffix(suite) == true)
    }
}
