internal import CStrataSystem

#if canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    package import Musl
#elseif canImport(Darwin)
    package import Darwin
#endif

/// A change counter shared by every process that has a store open: one 64-bit word in a small file mapped with
/// `MAP_SHARED` (`<root>/catalog/sequence` for the catalog, `<suite>.plist.changes` beside a defaults suite).
///
/// A writer bumps it after its change is in place. A reader compares it with the value it last caught up to: one
/// atomic load, a few nanoseconds, so a read costs almost nothing while nobody writes, and sees another process's
/// change as soon as the writer has made it.
package final class SharedCounter: Sendable {
    private static let length = 4096
    // The mapping lives as long as this object; the address is only read and bumped atomically through
    // CStrataSystem's helpers, so sharing it between threads is safe.
    private nonisolated(unsafe) let address: UnsafeMutableRawPointer

    /// Maps the counter file at `path` (created when absent).
    /// - Parameter what: What the counter counts, for messages (`the catalog's change counter`).
    package convenience init(path: String, what: String) throws {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
        } catch {
            throw error.storageError("cannot open \(what)", path: path)
        }
        try self.init(fd: fd, path: path, what: what)
    }

    /// Maps the counter file `name` in `folder` (created when absent, never through a link).
    package convenience init(in folder: DirectoryHandle, name: String, permissions: mode_t, what: String) throws {
        let fd: Int32
        do {
            fd = try folder.openFile(name, O_RDWR | O_CREAT, permissions: permissions)
        } catch {
            throw error.storageError("cannot open \(what)", path: folder.path(of: name))
        }
        try self.init(fd: fd, path: folder.path(of: name), what: what)
    }

    /// Maps the open counter file `fd` and closes it.
    private init(fd: Int32, path: String, what: String) throws {
        defer { Sys.close(fd) }
        do {
            let info = try Sys.fstat(fd)
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StorageError(.corrupt, "\(what) is not a regular file", path: path)
            }
            if info.st_size < Self.length { try Sys.ftruncate(fd, Int64(Self.length)) }
            address = try Sys.mapShared(fd, length: Self.length, path: path)
        } catch let error as Errno {
            throw error.storageError("cannot map \(what)", path: path)
        }
    }

    deinit { Sys.unmap(address, length: Self.length) }

    /// The current value.
    package var value: UInt64 { strata_shared_load(address) }

    /// Adds one and returns the new value.
    @discardableResult
    package func bump() -> UInt64 { strata_shared_increment(address) }
}
