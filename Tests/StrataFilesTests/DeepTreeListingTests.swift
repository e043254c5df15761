import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

/// A files tier nested deeper than any key (another program's folders): the listing recursed once per level and
/// overflowed the stack, which crashed every walk over the tier (list, verify, export, a backup's capture).
@Suite("FileStore: a tier nested deeper than any key")
struct DeepTreeListingTests {
    /// 100,000 levels, and a file 500 levels down whose key (1,004 bytes) is within the limit: the listing, the
    /// verification and an export reach it, and never go past the depth a key can reach.
    @Test func aTierOfAnyDepthIsListedToTheDepthAKeyReaches() throws {
        let directory = try TemporaryDirectory(prefix: "strata-deep-listing", inMemory: true)
        defer { directory.remove() }
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("top".utf8), to: "top.txt")
        let files = directory.appending("root/files")
        let reachable = try DeepFolders.make(in: files, depth: 500, leaf: "reached")
        try DeepFolders.make(in: files, depth: 100_000)
        // A key of exactly the longest length, and a file one byte past it.
        let longest = try DeepFolders.make(in: files, depth: 511, name: "e", leaf: "ab")
        try DeepFolders.make(in: files, depth: 511, name: "e", leaf: "abc")
        #expect(longest.utf8.count == StoragePaths.maximumKeyLength)

        #expect(try store.list() == [reachable, longest, "top.txt"].sorted())
        #expect(try store.list(prefix: "d/d") == [reachable])
        #expect(try store.verify().map(\.key).sorted() == [reachable, longest].sorted())  // Put by hand: unrecorded.
        #expect(try store.read(reachable) == Data("deep".utf8))
        let archive = directory.appending("all.zip")
        try store.exportZip([""], to: archive)
        let listed = try store.list()
        #expect(try FileStore(root: directory.appending("copy")).importZip(from: archive).sorted() == listed)
    }

    /// A zip entry named 4,000 or 30,000 folders deep (Python's `zipfile` writes one; a zip name holds at most
    /// 65,535 bytes) is no key: the import refuses it, typed, before anything is written; the store is unchanged.
    @Test(arguments: [4_000, 30_000])
    func anArchiveEntryDeeperThanAnyKeyIsRefused(levels: Int) throws {
        let directory = try TemporaryDirectory(prefix: "strata-deep-import", inMemory: true)
        defer { directory.remove() }
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("top".utf8), to: "top.txt")
        let archive = directory.appending("deep.zip")
        let made = try python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                + "    z.writestr('ok.txt', 'ok')\n    z.writestr('d/' * int(sys.argv[2]) + 'leaf', 'deep')\n",
            [archive, "\(levels)"])
        try #require(made.status == 0, "\(made.standardError)")
        let error = #expect(throws: StorageError.self) { try store.importZip(from: archive) }
        #expect(error?.code == .invalidKey, "\(String(describing: error))")
        #expect(try store.list() == ["top.txt"])
    }
}
