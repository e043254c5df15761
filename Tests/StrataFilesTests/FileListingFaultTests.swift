import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

/// A listing walked past a folder or an entry it could not read and returned the rest as if it were all: the
/// keys inside were left out without a word (a caller deleting "everything listed", or counting, was misled).
/// A read failure now fails the listing, typed and naming the path; an entry removed or swapped for a link while
/// the walk passes is still skipped.
@Suite("FileStore: a listing that cannot read a folder", .serialized)
struct FileListingFaultTests {
    @Test(arguments: [SystemCall.open, .stat])
    func aFolderThatCannotBeReadFailsTheListing(_ call: SystemCall) throws {
        let directory = try TemporaryDirectory(prefix: "strata-files-listing")
        defer { FaultInjector.shared.reset() }
        let store = try FileStore(root: directory.appending("root"))
        for key in ["a.txt", "inner/b.txt", "inner/deeper/c.txt", "other/d.txt"] {
            try store.write(Data(key.utf8), to: key)
        }
        #expect(try store.list() == ["a.txt", "inner/b.txt", "inner/deeper/c.txt", "other/d.txt"])
        FaultInjector.shared.inject(.error(EIO), on: call, pathContaining: directory.appending("root/files/inner"))
        let error = #expect(throws: StorageError.self) { try store.list() }
        #expect(error?.errno == EIO)
        #expect(error?.path?.contains("/files/inner") == true)
        FaultInjector.shared.reset()
        #expect(try store.list() == ["a.txt", "inner/b.txt", "inner/deeper/c.txt", "other/d.txt"])
    }

    /// A folder swapped for a link between the listing of its parent and its opening is skipped, never followed.
    @Test func aFolderSwappedForALinkIsSkipped() throws {
        let directory = try TemporaryDirectory(prefix: "strata-files-listing-link")
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("a".utf8), to: "a.txt")
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appending("root/files/link"), withDestinationPath: outside)
        #expect(try store.list() == ["a.txt"])
    }
}
