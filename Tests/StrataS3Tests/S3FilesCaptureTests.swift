import Foundation
import StrataCore
import StrataFiles
import StrataS3
import StrataTestSupport
import Testing

/// A capture of the files tier on S3, in the steps of a store's capture: objects downloaded ahead, and at the instant
/// only what changed since, with the copies that stopped being current withdrawn.
@Suite(.enabled(if: S3TestGateway.isConfigured, "STRATA_S3_URL is not set (Scripts/s3.sh start)"))
struct S3FilesCaptureTests {
    @Test func theInstantTakesWhatChangedSinceTheCopyAheadAndWithdrawsWhatWentStale() throws {
        let engine = try S3FileEngine(configuration: S3TestGateway.configuration { _ in })
        func write(_ key: String, _ text: String) throws {
            try engine.write(key) { try $0.write(Data(text.utf8)) }
        }
        for key in ["kept", "changed", "deleted"] { try write(key, "\(key) before") }
        let directory = try TemporaryDirectory(prefix: "strata-s3-capture")
        let capture = try FolderCapture(folder: directory.appending("capture"))

        let steps = try engine.beginCapture(into: capture, root: directory.path)
        #expect(capture.files.map(\.path).sorted() == ["files/changed", "files/deleted", "files/kept"])
        try write("changed", "changed after")
        #expect(try engine.delete("deleted"))
        try write("new", "new after")
        let pinned = try steps.pin(into: capture)
        _ = try steps.finish(into: capture)

        #expect(pinned.withdrawnPaths == ["files/changed", "files/deleted"])
        #expect(
            capture.files.map(\.path) == ["files/changed", "files/deleted", "files/kept", "files/changed", "files/new"])
        let last = try #require(capture.files.lastIndex { $0.path == "files/changed" })
        #expect(capture.contents(ofEntry: last) == Data("changed after".utf8))
        #expect(capture.files.allSatisfy { $0.tier == .files })
    }
}
