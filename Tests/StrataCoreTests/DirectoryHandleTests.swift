import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The descriptor-based path layer: folders opened from the root without following links, writes and locks
/// relative to them, and the owner and mode checks of roots and tier folders.
@Suite("Directory handles and folder ownership")
struct DirectoryHandleTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-handles") }

    @Test func foldersOnTheWayAreCreatedPrivateAndLinksAreRefused() throws {
        let paths = try StoragePaths(root: directory.appending("root"))
        let (folder, name) = try #require(try paths.openParent(of: "a/b/c.txt", in: .files, createParents: true))
        #expect(name == "c.txt")
        #expect(folder.path == paths.root + "/files/a/b")
        #expect(try folder.status().st_mode & 0o777 == 0o700)
        try AtomicFile.write(Data("x".utf8), in: folder, name: name)
        #expect(try AtomicFile.read(paths.root + "/files/a/b/c.txt") == Data("x".utf8))

        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: paths.root + "/files/a/l", withDestinationPath: outside)
        let error = #expect(throws: StorageError.self) {
            _ = try paths.openParent(of: "a/l/c.txt", in: .files, createParents: true)
        }
        #expect(error?.code == .symbolicLink)
        #expect(error?.key == "a/l/c.txt")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(try paths.openParent(of: "missing/c.txt", in: .files).map(\.name) == nil)
    }

    @Test func aFolderOpenedBeforeASwapKeepsWritingWhereItWas() throws {
        let paths = try StoragePaths(root: directory.appending("root"))
        let (folder, name) = try #require(try paths.openParent(of: "d/f", in: .files, createParents: true))
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        // A neighbour moves the folder away and puts a link in its place.
        try FileManager.default.moveItem(atPath: paths.root + "/files/d", toPath: paths.root + "/files/moved")
        try FileManager.default.createSymbolicLink(atPath: paths.root + "/files/d", withDestinationPath: outside)
        try AtomicFile.write(Data("x".utf8), in: folder, name: name)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(FileManager.default.fileExists(atPath: paths.root + "/files/moved/f"))
    }

    @Test func reclaimedLockFilesAreRemovedOnRelease() throws {
        let folder = try DirectoryHandle.open(path: directory.path)
        let lock = FileLock(in: folder, name: "k.lock", reclaimsFile: true)
        try lock.withLock(.exclusive) { #expect(FileManager.default.fileExists(atPath: lock.path)) }
        #expect(!FileManager.default.fileExists(atPath: lock.path))
        try lock.withLock(.shared) {}
        #expect(!FileManager.default.fileExists(atPath: lock.path))
        // A lock file that is a link is refused, not followed.
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: directory.appending("t"))
        #expect(throws: StorageError.self) { try lock.acquire(.exclusive, timeout: .nonBlocking) }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("t")))
    }

    @Test(arguments: [(0o770, false), (0o707, true), (0o777, true)])
    func rootsWritableByOthersAreRefusedUnlessSharedByTheGroup(_ mode: Int, _ refusedWhenShared: Bool) throws {
        let root = directory.appending("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        chmod(root, mode_t(mode))
        let error = #expect(throws: StorageError.self) { _ = try StoragePaths(root: root) }
        #expect(error?.code == .unsafePermissions)
        #expect(error?.path == root)
        #expect(error?.recovery?.contains("chmod") == true)
        if refusedWhenShared {
            #expect(throws: StorageError.self) { _ = try StoragePaths(root: root, sharing: .group) }
        } else {
            let shared = try StoragePaths(root: root, sharing: .group)
            let (folder, _) = try #require(try shared.openParent(of: "a/f", in: .files, createParents: true))
            #expect(try folder.status().st_mode & 0o777 == 0o770)
        }
    }

    @Test func aGroupWritableTierFolderIsRefused() throws {
        let paths = try StoragePaths(root: directory.appending("root"))
        let tier = try paths.directory(for: .files)
        chmod(tier, 0o770)
        let error = #expect(throws: StorageError.self) { _ = try paths.openParent(of: "f", in: .files) }
        #expect(error?.code == .unsafePermissions)
        #expect(error?.tier == .files)
        #expect(error?.path == tier)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a folder to another user"))
    func aRootOwnedByAnotherUserIsRefused() throws {
        let root = directory.appending("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        chmod(root, 0o700)
        chown(root, 65534, 65534)
        let error = #expect(throws: StorageError.self) { _ = try StoragePaths(root: root) }
        #expect(error?.code == .unsafePermissions)
        #expect(error?.recovery?.contains("chown") == true)
    }
}
