package import Foundation
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read once and kept open, so that a later read can learn in two system calls, with no settling time,
/// whether the name still holds those very bytes.
///
/// Store files are replaced by rename. A stamp (``FileStamp``) alone vouches for bytes only once the file has
/// settled, because a freed inode number is given again to a later file and the kernel stamps changes with a
/// coarse clock. A descriptor held open keeps its inode allocated, so no later file can get its number: when the
/// name's `fstatat` gives this file's device, inode and stamp, the name holds this very file, and reading it again
/// through the descriptor (`pread`, no `open`) and finding the same bytes rules out an edit in place too.
package final class PinnedFile: Sendable {
    private let fd: FileDescriptor
    /// The stamp of the file when it was read.
    package let stamp: FileStamp
    /// The folder the file was read in, kept open: the pin vouches for the name there only, since another folder
    /// put at the same path may hold this very file (a hard link) among files of its own.
    package let folder: DirectoryHandle

    private init(fd: FileDescriptor, stamp: FileStamp, folder: DirectoryHandle) {
        self.fd = fd
        self.stamp = stamp
        self.folder = folder
    }

    deinit { Sys.close(fd) }

    /// Reads the regular file `name` in `folder` whole and keeps it open.
    /// - Returns: The bytes, the file's status when it was opened, and the pin; `nil` when there is no such file.
    /// - Throws: ``StorageError`` `.tooLarge` over `maximumSize`, or the open or read error, naming the file.
    package static func read(in folder: DirectoryHandle, name: String, maximumSize: Int) throws -> (
        data: Data, status: stat, pin: PinnedFile
    )? {
        let (fd, status): (FileDescriptor, stat)
        do {
            // A FIFO, socket, device or folder in the file's place is refused, never waited on.
            (fd, status) = try folder.openRegularFile(name)
        } catch let error where error.code == ENOENT {
            return nil
        } catch {
            throw error.storageError("cannot open the file", path: folder.path(of: name))
        }
        let pin = PinnedFile(fd: fd, stamp: FileStamp(status), folder: folder)
        // Store files are replaced, never appended to: the bytes fstat counted are the file.
        let data = try AtomicFile.readAll(
            fd, status: status, path: folder.path(of: name), maximumSize: maximumSize, followGrowth: false)
        return (data, status, pin)
    }

    /// Whether `name` in `folder` is still this file and holds `bytes` (those read through it). Any failure to
    /// tell — another folder than ``folder``, the name gone, an error — answers `false`: the caller reads the file
    /// again.
    package func stillHolds(_ bytes: Data, as name: String, in folder: DirectoryHandle) -> Bool {
        guard folder === self.folder, let status = try? folder.status(of: name), FileStamp(status) == stamp,
            Int(status.st_size) == bytes.count
        else { return false }
        // One read of one byte more than expected: a file that grew in place is told apart too.
        return withUnsafeTemporaryAllocation(byteCount: bytes.count + 1, alignment: 16) { buffer in
            var filled = 0
            while filled < buffer.count {
                guard
                    let got = try? Sys.pread(
                        fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: Int64(filled)),
                    got > 0
                else { break }
                filled += got
            }
            return filled == bytes.count
                && bytes.withUnsafeBytes { expected in
                    expected.isEmpty || memcmp(expected.baseAddress!, buffer.baseAddress!, expected.count) == 0
                }
        }
    }
}
