import Foundation
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small file that holds a key or a passphrase (a secrets key file, a passphrase file, a backup repository's key
/// file): read only when it is a regular file of this process's user that no one else may read or write.
package enum PrivateFile {
    /// Reads the file after checking it.
    ///
    /// The file is checked before anything blocks on it: `lstat` refuses a link, a FIFO, a socket or a device
    /// without opening it, and the open itself is non-blocking (a FIFO swapped in meanwhile opens at once instead of
    /// waiting for a writer) and its `fstat` is checked again before the first read.
    /// - Parameters:
    ///   - what: What the file is (`key file`, `passphrase file`), for the errors.
    ///   - tier: The tier it unlocks, for the errors.
    ///   - maximumSize: The largest file read.
    /// - Throws: ``StorageError`` `.invalidArgument` (not a regular file), `.symbolicLink`, `.unsafePermissions`
    ///   (open to its group or others, or another user's), `.tooLarge`, or an I/O error; each names the path.
    package static func read(_ path: String, what: String, tier: Tier?, maximumSize: Int) throws -> [UInt8] {
        func check(_ info: stat) throws {
            guard (info.st_mode & S_IFMT) != S_IFLNK else {
                throw StorageError(
                    .symbolicLink, "the \(what) is a symbolic link", tier: tier, path: path,
                    recovery: "Name the file itself")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StorageError(
                    .invalidArgument, "the \(what) is not a regular file (a FIFO, socket, device or folder)",
                    tier: tier, path: path, recovery: "Use a regular file of mode 0600")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw StorageError(
                    .unsafePermissions,
                    "the \(what) is open to others (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0600",
                    tier: tier, path: path, recovery: "Run: chmod 600 \(path)")
            }
            guard info.st_uid == Sys.effectiveUserID else {
                throw StorageError(
                    .unsafePermissions,
                    "the \(what) belongs to user \(info.st_uid), not to this process's user \(Sys.effectiveUserID)",
                    tier: tier, path: path, recovery: "Use a \(what) of your own, mode 0600")
            }
        }
        do { try check(try Sys.lstat(path)) } catch let error as Errno {
            throw error.storageError("cannot inspect the \(what)", tier: tier, path: path)
        }
        let fd: FileDescriptor
        do {
            fd = try Sys.open(path, .readOnly, [.noFollow, .nonBlocking, .noControllingTerminal])
        } catch {
            throw error.storageError("cannot open the \(what)", tier: tier, path: path)
        }
        defer { Sys.close(fd) }
        do { try check(try Sys.fstat(fd)) } catch let error as Errno {
            throw error.storageError("cannot inspect the \(what)", tier: tier, path: path)
        }
        return [UInt8](try AtomicFile.readAll(fd, path: path, maximumSize: maximumSize))
    }
}
