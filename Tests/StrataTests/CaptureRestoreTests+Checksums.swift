import Foundation
import Strata
import StrataTestSupport
import Testing

// A restore checks each files-tier file's content, as it writes it, against the checksum recorded with it: a
// restored store then passes the tier's verification without the files being read again.
extension CaptureRestoreTests {
    /// A copy of `capture` in which the content of `path` is edited by `edit` (its description, size and checksum
    /// kept); by default its middle byte is flipped.
    func capture(
        _ capture: FolderCapture, editing path: String,
        _ edit: (inout [UInt8]) -> Void = { $0[$0.count / 2] ^= 0x20 }
    ) throws -> FolderCapture {
        let forged = try FolderCapture(folder: directory.appending("forged"))
        for file in capture.files {
            var content = Array(try #require(capture.contents(of: file.path)))
            if file.path == path { edit(&content) }
            try forged.add(file, contents: content)
        }
        return forged
    }

    /// The source gives no CRC-32 of what it wrote (`FolderCapture` writes one file at a time): the restore reads
    /// the staged file back to check it, and a file whose content does not match its checksum fails the restore.
    @Test func aFileThatDoesNotMatchItsChecksumFailsTheRestoreFromASourceWithoutOne() throws {
        let storage = try filledStore()
        try storage.put(Data(repeating: 0x41, count: 300_000), for: "big.bin", as: descriptorForTier[.files]!)
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        let forged = try capture(folder, editing: "files/big.bin")
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: forged, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt)
        #expect(error?.tier == .files)
        #expect(error?.path == "files/big.bin")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
        // The capture as it was restores, and its files verify.
        let report = try Storage.restore(from: folder, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 6)
        #expect(try openStorage(target).files.verify().isEmpty)
    }
}
