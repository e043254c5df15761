import Foundation
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// StrataSystem's typed descriptor: files opened, read, written and closed through `FileDescriptor`, the open
/// options and permissions, and the `Errno` a bad descriptor or a refused open reports.
@Suite("Typed file descriptors")
struct FileDescriptorTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-descriptors") }

    @Test func aFileIsCreatedWrittenReadAndClosedThroughTheTypedDescriptor() throws {
        let path = directory.appending("file")
        let writer = try Sys.open(path, .writeOnly, [.create, .exclusive], permissions: .ownerReadWrite)
        try writer.closeAfter { try Sys.writeAll(writer, Data("typed".utf8), path: path) }
        #expect(try Sys.lstat(path).st_mode & 0o7777 == 0o600)

        var buffer = [UInt8](repeating: 0, count: 16)
        let reader = try Sys.open(path, .readOnly)
        let count = try reader.closeAfter { try Sys.read(reader, into: &buffer) }
        #expect(Array(buffer[0..<count]) == Array("typed".utf8))

        // Exclusive creation refuses a name that is taken, with the errno as a typed error.
        let taken = #expect(throws: Errno.self) { _ = try Sys.open(path, .writeOnly, [.create, .exclusive]) }
        #expect(taken == Errno(EEXIST))
    }

    @Test func anInvalidDescriptorGivesATypedError() throws {
        let invalid = FileDescriptor(rawValue: -1)
        let error = #expect(throws: Errno.self) { _ = try Sys.fstat(invalid) }
        #expect(error == Errno(EBADF))
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: Errno(EBADF)) { _ = try Sys.read(invalid, into: &buffer) }
    }

    @Test func closeAfterClosesWhenTheBodyThrows() throws {
        let path = directory.appending("lock")
        let holder = try Sys.open(path, .readOnly, .create)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try holder.closeAfter {
                try Sys.flock(holder, LOCK_EX | LOCK_NB)
                throw Stop()
            }
        }
        // The lock went with the descriptor: a second open file takes it at once. (A check of the number itself
        // would race with the other tests' opens, which may be given it again.)
        let other = try Sys.open(path, .readOnly)
        try other.closeAfter { try Sys.flock(other, LOCK_EX | LOCK_NB) }
    }

    @Test func openOptionsAndPermissionsCarryTheirConstants() {
        #expect(FileDescriptor.AccessMode.readOnly.rawValue == O_RDONLY)
        #expect(FileDescriptor.AccessMode.readWrite.rawValue == O_RDWR)
        let options: FileDescriptor.OpenOptions = [.create, .exclusive, .noFollow]
        #expect(options.rawValue == O_CREAT | O_EXCL | O_NOFOLLOW)
        #expect(FilePermissions.ownerReadWrite == 0o600)
        #expect(FilePermissions([.ownerReadWriteExecute, .groupRead]).description == "0o740")
        #expect(FilePermissions(0o100644) == 0o644)
        #expect(FileDescriptor.standardError.rawValue == 2)
    }

    @Test func aFolderDescriptorRefusesALinkUnderNoFollow() throws {
        let target = directory.appending("target")
        try Data().write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: directory.appending("link"), withDestinationPath: target)
        let folder = try DirectoryHandle.open(path: directory.path)
        let error = #expect(throws: Errno.self) { _ = try folder.openFile("link", .readOnly) }
        #expect(error == Errno(ELOOP))
        let fd = try folder.openFile("target", .readOnly)
        fd.close()
    }
}
