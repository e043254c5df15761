import Foundation
import Strata
import StrataTestSupport
import Testing

/// A hostile or damaged capture is a typed error, and a restore of one writes nothing outside its staging folder
/// and leaves no store and no staging folder behind.
@Suite("Storage: restoring a hostile capture")
struct CaptureHostileTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-capture-hostile")
    }

    /// One change to a sound capture's descriptions, named for the test's arguments.
    enum Tampering: String, CaseIterable, Sendable {
        case parentComponent, absolutePath, otherTiersFolder, reservedName, unknownStoreFile, sizeTooLarge
        case sizeTooSmall, duplicatePath, fileUnderAFile, systemAttribute, setuidMode

        func apply(to files: inout [CapturedFile]) {
            let index = files.firstIndex { $0.tier == .files }!
            switch self {
            case .parentComponent: files[index].path = "files/../../escape"
            case .absolutePath: files[index].path = "/tmp/strata-capture-escape"
            case .otherTiersFolder: files[index].path = "secrets/default/evil.item"
            case .reservedName: files[index].path = "files/.strata-locks/evil"
            case .unknownStoreFile:
                files[index].tier = nil
                files[index].path = "evil"
            case .sizeTooLarge: files[index].size += 1
            case .sizeTooSmall: files[index].size -= 1
            case .duplicatePath: files.append(files[index])
            case .fileUnderAFile:
                var under = files[index]
                under.path += "/escape"
                files.append(under)
            case .systemAttribute: files[index].extendedAttributes["security.evil"] = [1]
            case .setuidMode: files[index].mode = 0o4755
            }
        }
    }

    @Test(arguments: Tampering.allCases)
    func hostileCaptureIsATypedErrorAndWritesNothingOutside(_ tampering: Tampering) throws {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        try capture.rewrite { tampering.apply(to: &$0) }
        // A link planted where a dead restore's staging folder would be is never followed.
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/keep"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appending(".strata-restore-restored-planted"), withDestinationPath: outside)

        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.path != nil)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("escape")))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/strata-capture-escape"))
        #expect(FileManager.default.contents(atPath: outside + "/keep") == Data("keep".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(".strata-restore-")
        }
        #expect(left == [".strata-restore-restored-planted"])
        // The store captured is untouched.
        #expect(try storage.data(for: "k/files") == Data("value of files".utf8))
    }
}
