import Foundation
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Opening a counter file, with failures reported as a `StorageError`.
extension SharedCounter {
    /// Maps the counter file at `path` (created when absent).
    /// - Parameter what: What the counter counts, for messages (`the catalog's change counter`).
    package convenience init(path: String, what: String) throws {
        let fd: FileDescriptor
        do {
            fd = try Sys.open(path, .readWrite, [.create, .noFollow])
        } catch {
            throw error.storageError("cannot open \(what)", path: path)
        }
        try self.init(fd: fd, path: path, what: what)
    }

    /// Maps the counter file `name` in `folder` (created when absent, never through a link).
    package convenience init(in folder: DirectoryHandle, name: String, permissions: FilePermissions, what: String)
        throws
    {
        let fd: FileDescriptor
        do {
            fd = try folder.openFile(name, .readWrite, .create, permissions: permissions)
        } catch {
            throw error.storageError("cannot open \(what)", path: folder.path(of: name))
        }
        try self.init(fd: fd, path: folder.path(of: name), what: what)
    }

    /// Maps the open counter file `fd`, which must be a regular file, and closes it.
    private convenience init(fd: FileDescriptor, path: String, what: String) throws {
        defer { Sys.close(fd) }
        let info: stat
        do throws(Errno) { info = try Sys.fstat(fd) } catch {
            throw error.storageError("cannot map \(what)", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(.corrupt, "\(what) is not a regular file", path: path)
        }
        do throws(Errno) { try self.init(mapping: fd, path: path) } catch {
            throw error.storageError("cannot map \(what)", path: path)
        }
    }
}
