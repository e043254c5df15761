import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listing while the folders under it change: an entry removed, swapped for a file, a link or a FIFO between the
/// folder's reading and the entry's status or opening, and names and shapes no key of the store's own makes.
@Suite("FileStore: a listing racing changes to its folders", .serialized)
struct ListingAdversarialTests {
    static let keys = ["a.txt", "inner/b.txt", "inner/deeper/c.txt", "other/d.txt"]

    static func store(_ directory: TemporaryDirectory) throws -> FileStore {
        let store = try FileStore(root: directory.appending("root"))
        for key in keys { try store.write(Data(key.utf8), to: key) }
        return store
    }

    /// Removed between the parent's listing and the entry's status: skipped, with the rest listed.
    @Test func aFolderRemovedBeforeItsStatusIsSkipped() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-removed")
        defer { FaultInjector.shared.reset() }
        let store = try Self.store(directory)
        FaultInjector.shared.inject(.error(ENOENT), on: .stat, pathContaining: directory.appending("root/files/inner"))
        #expect(try store.list() == ["a.txt", "other/d.txt"])
    }

    /// Swapped for a file after its status said folder (the open finds no folder), then removed before the check of
    /// what it became: gone meanwhile, so skipped like a folder removed before its status. It failed the listing with
    /// "cannot inspect a folder" (`ENOENT`).
    @Test func aFolderSwappedForAFileThenRemovedIsSkipped() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-swapped-gone")
        defer { FaultInjector.shared.reset() }
        let store = try Self.store(directory)
        // The open finds no folder, the check after it nothing at all, and so does the open tried again.
        FaultInjector.shared.inject(.error(ENOTDIR), on: .open, pathContaining: directory.appending("root/files/inner"))
        FaultInjector.shared.inject(.error(ENOENT), on: .open, pathContaining: directory.appending("root/files/inner"))
        // The first status (the listing's) says folder; the second (after the failed open) finds nothing.
        FaultInjector.shared.inject(
            .error(ENOENT), on: .stat, pathContaining: directory.appending("root/files/inner"), after: 1)
        #expect(try store.list() == ["a.txt", "other/d.txt"])
    }

    /// Swapped for a link (`ELOOP`, a link's status) or for a file or a FIFO (`ENOTDIR`): skipped, never followed;
    /// swapped back to a folder before the check: walked.
    @Test func aFolderSwappedForALinkOrAFifoIsSkippedAndOneSwappedBackIsWalked() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-swapped")
        defer { FaultInjector.shared.reset() }
        let store = try Self.store(directory)
        let files = directory.appending("root/files")
        // Really a FIFO now, but listed as a folder: the open without following links refuses it.
        try FileManager.default.moveItem(atPath: files + "/inner", toPath: directory.appending("inner"))
        #expect(mkfifo(files + "/inner", 0o600) == 0)
        #expect(try store.list() == ["a.txt", "other/d.txt"])
        #expect(try store.list(prefix: "inner") == [])
        try FileManager.default.removeItem(atPath: files + "/inner")
        try FileManager.default.moveItem(atPath: directory.appending("inner"), toPath: files + "/inner")
        // The open fails as if swapped, the check finds a folder again: opened afresh and walked.
        FaultInjector.shared.inject(.error(ENOTDIR), on: .open, pathContaining: directory.appending("root/files/inner"))
        #expect(try store.list() == Self.keys)
        FaultInjector.shared.reset()
        FaultInjector.shared.inject(.error(ELOOP), on: .open, pathContaining: directory.appending("root/files/inner"))
        #expect(try store.list() == Self.keys)
    }

    /// An entry whose status cannot be read for want of permission, or memory, fails the listing naming it.
    @Test(arguments: [EACCES, ENOMEM, EOVERFLOW])
    func anEntryThatCannotBeInspectedFailsTheListing(_ code: Int32) throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-stat")
        defer { FaultInjector.shared.reset() }
        let store = try Self.store(directory)
        FaultInjector.shared.inject(
            .error(code), on: .stat, pathContaining: directory.appending("root/files/inner/deeper/c.txt"))
        let error = #expect(throws: StorageError.self) { try store.list() }
        #expect(error?.errno == code)
        #expect(error?.path?.hasSuffix("/files/inner/deeper/c.txt") == true)
        FaultInjector.shared.reset()
        #expect(try store.list() == Self.keys)
    }

    /// Names no key of the store's own holds, written there by another program: a newline, a tab, a name of only
    /// spaces, a name of 255 bytes. Each is a key, listed as it is.
    @Test func namesWithControlCharactersAreListedAsTheyAre() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-names")
        let store = try Self.store(directory)
        let files = directory.appending("root/files")
        let names = ["line\nbreak", "tab\there", "   ", String(repeating: "n", count: 255), "é"]
        for name in names {
            #expect(FileManager.default.createFile(atPath: files + "/inner/" + name, contents: Data("x".utf8)))
        }
        #expect(try store.list(prefix: "inner") == (["b.txt", "deeper/c.txt"] + names).map { "inner/" + $0 }.sorted())
    }

    /// A name that is not UTF-8 (another program's: no key has one) is not a key: neither it nor what a folder of
    /// that name holds is listed, and nothing else is left out.
    @Test func namesThatAreNotUTF8AreNotKeys() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-utf8")
        let store = try Self.store(directory)
        let inner = Array(directory.appending("root/files/inner/").utf8)
        let file = inner + [0x61, 0xFF]  // "a" and a byte UTF-8 never has
        let fd = (file + [0]).withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        #expect(fd >= 0)
        close(fd)
        let folder = inner + [0xC3, 0x28]  // a lead byte without its continuation
        #expect(
            (folder + [0]).withUnsafeBufferPointer {
                mkdir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), 0o700)
            } == 0)
        let hidden = folder + Array("/hidden.txt".utf8)
        let hiddenFD = (hidden + [0]).withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        #expect(hiddenFD >= 0)
        close(hiddenFD)
        #expect(try store.list() == Self.keys)
    }

    /// A name that is not UTF-8 beside the key its lossy decoding spells (`a\xFF` beside `a\u{FFFD}`): the key is
    /// listed once and reads its own bytes; the foreign name was decoded to the key's name and listed twice.
    @Test func aNameNotUTF8BesideTheKeyItsDecodingSpellsIsNotListed() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-lossy")
        let store = try Self.store(directory)
        try store.write(Data("real".utf8), to: "inner/a\u{FFFD}")
        let foreign = Array(directory.appending("root/files/inner/").utf8) + [0x61, 0xFF, 0]
        let fd = foreign.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        #expect(fd >= 0)
        close(fd)
        #expect(try store.list(prefix: "inner") == ["inner/a\u{FFFD}", "inner/b.txt", "inner/deeper/c.txt"])
        #expect(try store.read("inner/a\u{FFFD}") == Data("real".utf8))
    }

    /// Folders 200 deep: every one walked (a descriptor each, held while the walk is under it).
    @Test func aDeepTreeIsWalkedToTheBottom() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-deep")
        let store = try FileStore(root: directory.appending("root"))
        let key = Array(repeating: "d", count: 200).joined(separator: "/") + "/leaf.txt"
        try store.write(Data("leaf".utf8), to: key)
        try store.write(Data("top".utf8), to: "top.txt")
        #expect(try store.list() == [key, "top.txt"])
        #expect(try store.list(recursive: false) == ["top.txt"])
    }

    /// A folder of 400 entries, most of them of the reserved prefix or links, lists exactly its files.
    @Test func aLargeFolderListsExactlyItsFiles() throws {
        let directory = try TemporaryDirectory(prefix: "strata-listing-large")
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("x".utf8), to: "big/first.txt")
        let folder = directory.appending("root/files/big")
        var expected = ["big/first.txt"]
        for index in 0..<400 {
            let path: String
            switch index % 4 {
            case 0:
                path = folder + "/f\(index)"
                expected.append("big/f\(index)")
            case 1: path = folder + "/" + StoragePaths.reservedPrefix + "t\(index)"
            case 2:
                #expect(symlink("/etc/passwd", folder + "/l\(index)") == 0)
                continue
            default:
                #expect(mkdir(folder + "/e\(index)", 0o700) == 0)
                continue
            }
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            #expect(fd >= 0)
            close(fd)
        }
        #expect(try store.list() == expected.sorted())
    }
}
