import Foundation
import Strata
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

/// A restore whose target appears while it runs, or whose capture comes from another store layout, is a typed error
/// that leaves what was planted untouched, no store at the target and no staging folder.
@Suite("Storage: restore races and foreign layouts")
struct CaptureRestoreRaceTests {
    let directory: TemporaryDirectory
    var target: String { directory.appending("restored") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-restore-race")
    }

    /// A capture source that runs `plant` before the first file is written, and may replace a file's content.
    final class Interfering: CaptureSource {
        let inner: FolderCapture
        let plant: () throws -> Void
        let replacements: [String: [UInt8]]
        private var planted = false

        init(
            _ inner: FolderCapture, replacing replacements: [String: [UInt8]] = [:], plant: @escaping () throws -> Void
        ) {
            self.inner = inner
            self.replacements = replacements
            self.plant = plant
        }

        var files: [CapturedFile] {
            inner.files.map { file in
                var file = file
                if let content = replacements[file.path] { file.size = Int64(content.count) }
                return file
            }
        }

        func write(_ file: CapturedFile, to descriptor: FileDescriptor) throws {
            if !planted {
                planted = true
                try plant()
            }
            if let content = replacements[file.path] {
                _ = content.withUnsafeBytes { Foundation.write(descriptor.rawValue, $0.baseAddress, $0.count) }
            } else {
                try inner.write(file, to: descriptor)
            }
        }
    }

    /// What appears at the target while the restore runs.
    enum Intruder: String, CaseIterable, Sendable {
        case file, linkToEmptyFolder, nonEmptyFolder
    }

    private func capture() throws -> (Storage, FolderCapture) {
        let storage = try openStorage(directory.appending("store"))
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        return (storage, capture)
    }

    private func stagingLeft() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-restore-") }
    }

    @Test("a target that appears during the restore is a conflict; it is left as it was", arguments: Intruder.allCases)
    func targetAppearsDuringRestore(_ intruder: Intruder) throws {
        let (_, capture) = try capture()
        let empty = directory.appending("empty")
        let source = Interfering(capture) { [target] in
            switch intruder {
            case .file:
                try Data("mine".utf8).write(to: URL(fileURLWithPath: target))
            case .linkToEmptyFolder:
                try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
                try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: empty)
            case .nonEmptyFolder:
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
                try Data("mine".utf8).write(to: URL(fileURLWithPath: target + "/keep"))
            }
        }
        let error = try #require(throws: StorageError.self) {
            try Storage.restore(from: source, to: target, secretsKey: testSecretsKey)
        }
        #expect(error.code == .conflict)
        #expect(error.path == target)
        switch intruder {
        case .file:
            #expect(FileManager.default.contents(atPath: target) == Data("mine".utf8))
        case .linkToEmptyFolder:
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: target) == empty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        case .nonEmptyFolder:
            #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["keep"])
        }
        #expect(try stagingLeft().isEmpty)
    }

    @Test("a capture whose description has a newer format version is refused as such, and leaves nothing")
    func newerCaptureFormatIsRefused() throws {
        let (_, capture) = try capture()
        let description = ".strata-capture.json"
        #expect(capture.files.contains { $0.path == description })
        let newer = Array(#"{"version":99,"created":0,"omissions":[]}"#.utf8)
        let source = Interfering(capture, replacing: [description: newer]) {}
        let error = try #require(throws: StorageError.self) {
            try Storage.restore(from: source, to: target, secretsKey: testSecretsKey)
        }
        #expect(error.code == .unsupportedVersion, "\(error)")
        #expect(error.path == description)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try stagingLeft().isEmpty)
    }

    @Test(
        "a capture with an impossible modification time is corrupt, naming the file",
        arguments: [Int32(-1), Int32(1_000_000_000), Int32((1 << 30) - 1), Int32((1 << 30) - 2)] as [Int32])
    func impossibleModificationTime(_ nanoseconds: Int32) throws {
        let (_, capture) = try capture()
        try capture.rewrite { files in
            let index = files.firstIndex { $0.tier == .files }!
            files[index].modificationTime.nanoseconds = nanoseconds
        }
        let error = try #require(throws: StorageError.self) {
            try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        }
        #expect(error.code == .corrupt, "\(error)")
        #expect(error.tier == .files)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try stagingLeft().isEmpty)
    }

    @Test("a file appearing at the target between the last check and the rename is a conflict, not an I/O error")
    func fileAppearsJustBeforeTheRename() throws {
        let (_, capture) = try capture()
        // rename(2) of a folder onto a file that just appeared fails with ENOTDIR. The injector is shared by the
        // tests of this process, and another may reset it before the rename: a restore that went through is
        // inconclusive and is tried again under a new name.
        for attempt in 0..<5 {
            let name = "restored-racing-rename-\(attempt)"
            let target = directory.appending(name)
            FaultInjector.shared.inject(.error(ENOTDIR), on: .rename, pathContaining: name)
            do {
                try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
            } catch let error as StorageError {
                #expect(error.code == .conflict, "\(error)")
                #expect(error.path == target)
                #expect(try stagingLeft().isEmpty)
                return
            }
        }
        Issue.record("the injected rename failure never reached the restore")
    }
}
