package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open folder, the anchor of every file operation under a root.
///
/// The descriptor is opened with `O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`, from the root down one component at a
/// time, and every operation names a single component relative to it (`openat`, `renameat`, `unlinkat`,
/// `fstatat` without following links). A neighbour who swaps a folder for a symbolic link between two steps
/// cannot redirect anything: the link is refused when a folder is opened through it, and a folder already open
/// stays the folder it was, wherever it is moved.
///
/// ```swift
/// let folder = try DirectoryHandle.open(path: "/srv/store/files")
/// let fd = try folder.openFile("report.pdf", .readOnly)
/// ```
package final class DirectoryHandle: Sendable {
    /// The descriptor; closed at deinit.
    package let fd: FileDescriptor
    /// The path the folder was opened by, for messages and fault filters only: it is never looked up again.
    package let path: String

    /// Takes ownership of `fd`, an open folder, which is closed at deinit.
    package init(fd: FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { Sys.close(fd) }

    /// Opens a folder by an absolute path, following links on the way: for a store root (the caller chose its
    /// path) and for the folder of a path given to a path-based API.
    /// - Throws: ``Errno`` (`ENOENT`, `ENOTDIR`, ...).
    package static func open(path: String) throws(Errno) -> DirectoryHandle {
        DirectoryHandle(fd: try Sys.open(path, .readOnly, .directory), path: path)
    }

    /// The display path of `name` inside this folder.
    package func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// Opens the file `name` inside this folder; `O_NOFOLLOW` and `O_CLOEXEC` are always added.
    /// - Throws: ``Errno`` (`ELOOP` for a link, `ENOENT`, ...).
    package func openFile(
        _ name: String, _ access: FileDescriptor.AccessMode, _ options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions = .ownerReadWrite
    ) throws(Errno) -> FileDescriptor {
        try Sys.openat(fd, name, access, options.union(.noFollow), permissions: permissions, path: path(of: name))
    }

    /// Opens the regular file `name` inside this folder (`O_NOFOLLOW`, `O_CLOEXEC` added) and returns its descriptor
    /// and status. It never waits: the file is opened non-blocking (no change for a regular file), so that a FIFO,
    /// a socket or a device put where one of a store's files belongs opens at once and is refused, as a folder is.
    /// - Parameters:
    ///   - options: None, or ``FileDescriptor/OpenOptions/create`` (then `permissions` apply).
    /// - Throws: ``Errno``: `ENXIO` for what is not a regular file (callers say so in their error), `ELOOP` for a link,
    ///   `ENOENT`, ...
    package func openRegularFile(
        _ name: String, _ options: FileDescriptor.OpenOptions = [], permissions: FilePermissions = .ownerReadWrite
    ) throws(Errno) -> (fd: FileDescriptor, status: stat) {
        let fd = try openFile(
            name, .readOnly, options.union([.nonBlocking, .noControllingTerminal]), permissions: permissions)
        do throws(Errno) {
            let status = try Sys.fstat(fd)
            guard status.st_mode & S_IFMT == S_IFREG else { throw Errno(ENXIO) }
            return (fd, status)
        } catch {
            fd.close()
            throw error
        }
    }

    /// Information about `name` itself (a link is reported as a link), or `nil` when there is nothing there.
    package func status(of name: String) throws(Errno) -> stat? {
        do {
            return try Sys.fstatat(fd, name, path: path(of: name))
        } catch  where error.code == ENOENT {
            return nil
        }
    }

    /// Information about this folder.
    package func status() throws(Errno) -> stat { try Sys.fstat(fd) }

    /// Renames `name` to `newName` in `destination` (this folder when `nil`), replacing what is there.
    package func rename(_ name: String, to newName: String, in destination: DirectoryHandle? = nil) throws(Errno) {
        let target = destination ?? self
        try Sys.renameat(fd, name, target.fd, newName, path: target.path(of: newName))
    }

    /// Gives the file `name` a second name, `newName` in `destination` (this folder when `nil`), with
    /// `linkat(2)`; a link at `name` gets the second name itself, never its target.
    /// - Throws: ``Errno`` (`ENOENT` when there is nothing at `name`, `EEXIST` when `newName` is taken, ...).
    package func link(_ name: String, to newName: String, in destination: DirectoryHandle? = nil) throws(Errno) {
        let target = destination ?? self
        try Sys.linkat(fd, name, target.fd, newName, path: target.path(of: newName))
    }

    /// Removes the file (or link) `name`.
    package func unlink(_ name: String) throws(Errno) {
        try Sys.unlinkat(fd, name, path: path(of: name))
    }

    /// Removes the empty folder `name`.
    package func removeDirectory(_ name: String) throws(Errno) {
        try Sys.unlinkat(fd, name, AT_REMOVEDIR, path: path(of: name))
    }

    /// The names in this folder, without `.` and `..`, unsorted. Names that are not UTF-8 (another program's, never
    /// a key) are left out: no name decoded from them would reach the same file.
    package func entries() throws(Errno) -> [String] {
        try Sys.directoryEntries(fd, path: path).names
    }

    /// Whether this folder holds nothing at all (but `.` and `..`), counting names that are not UTF-8.
    package func isEmpty() throws(Errno) -> Bool {
        try holdsOnly([])
    }

    /// Whether this folder holds nothing but names in `allowed` (but `.` and `..`); a name that is not UTF-8 is
    /// never one of them.
    package func holdsOnly(_ allowed: Set<String>) throws(Errno) -> Bool {
        let (names, undecodable) = try Sys.directoryEntries(fd, path: path)
        return undecodable == 0 && names.allSatisfy(allowed.contains)
    }
}
