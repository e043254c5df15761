import Foundation
package import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock that holds across processes: shared for readers, exclusive for writers.
///
/// Built on `flock(2)` over a dedicated lock file, opened relative to its folder's descriptor with
/// `O_NOFOLLOW` (a link in its place is refused, never followed). Each acquisition opens its own descriptor,
/// so the lock also excludes other threads of the same process, and the kernel releases it when the holder's
/// descriptor closes, including when the process dies (even by `SIGKILL`).
///
/// Cross-process rule for lock files that are reclaimed (`init(in:name:reclaimsFile:)`): a lock file is
/// unlinked only by a holder of its exclusive lock, after checking that the name still leads to the file it
/// locked; and every acquirer, once its `flock` succeeds, checks (`fstat` against `fstatat`) that the file it
/// locked is still the one at the name, and starts over if not. So a waiter on a file that was unlinked under
/// it never counts as a holder, and two holders can never be in at once.
///
/// The lock is not reentrant: a thread that asks again for an exclusive lock it holds waits for itself.
///
/// ```swift
/// let lock = FileLock(path: root + "/defaults/standard.plist.lock")
/// try lock.withLock(.exclusive, timeout: .seconds(5)) {
///     // read, merge, write
/// }
/// ```
public struct FileLock: Sendable, Hashable {
    /// How the lock is held.
    public enum Mode: Sendable, Hashable, CustomStringConvertible {
        /// Many holders at once; excludes exclusive holders.
        case shared
        /// One holder; excludes everyone else.
        case exclusive

        public var description: String { self == .shared ? "shared" : "exclusive" }
    }

    /// How long to wait for a lock that someone else holds.
    public enum Timeout: Sendable, Hashable {
        /// Do not wait: fail at once with ``StorageError/Code/lockUnavailable``.
        ///
        /// A lock released a moment ago can still be refused: `flock(2)` belongs to the open file, and a child
        /// that a process is spawning holds a copy of every descriptor from its fork until its exec closes them
        /// (they are all `O_CLOEXEC`). Code that must take a lock it expects to be free waits a bounded time
        /// (``after(_:)``) instead.
        case nonBlocking
        /// Wait until the lock is free.
        case forever
        /// Wait at most this long, then fail with ``StorageError/Code/lockTimeout``.
        case after(Duration)

        /// Waits at most `seconds`.
        public static func seconds(_ seconds: Double) -> Timeout { .after(.milliseconds(Int64(seconds * 1000))) }
    }

    /// The lock file's path, for messages. It is created (mode 0600) on first use.
    public let path: String
    /// The open folder of the lock file, when the lock was made with one.
    private let folder: DirectoryHandle?
    /// The lock file's name in its folder.
    private let name: String
    /// Whether a holder removes the lock file when it lets go (see the type's rules).
    private let reclaimsFile: Bool
    /// The mode new lock files get.
    private let permissions: FilePermissions

    /// Describes the lock kept in the file at `path`; nothing is opened until ``acquire(_:timeout:)``.
    /// The folder of `path` is opened at each acquisition (following links in `path`, which the caller chose);
    /// the lock file itself is never a link. The file is kept when released.
    public init(path: String) {
        self.path = path
        self.folder = nil
        self.name = LocalPath(path).lastComponent ?? ""
        self.reclaimsFile = false
        self.permissions = 0o600
    }

    /// Describes the lock kept in the file `name` of an open folder.
    /// - Parameters:
    ///   - folder: The folder of the lock file.
    ///   - name: The lock file's name.
    ///   - reclaimsFile: Whether the file is removed when the last holder lets go, so that a folder of
    ///     per-key lock files stays as small as the set of locks in use. The default is `false`.
    ///   - permissions: The mode of a new lock file. The default is 0600.
    package init(
        in folder: DirectoryHandle, name: String, reclaimsFile: Bool = false,
        permissions: FilePermissions = 0o600
    ) {
        self.path = folder.path(of: name)
        self.folder = folder
        self.name = name
        self.reclaimsFile = reclaimsFile
        self.permissions = permissions
    }

    public static func == (lhs: FileLock, rhs: FileLock) -> Bool { lhs.path == rhs.path }
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// Takes the lock.
    /// - Parameters:
    ///   - mode: Shared or exclusive.
    ///   - timeout: How long to wait. The default is ``Timeout/forever``.
    /// - Returns: The held lock; it is released by ``HeldLock/release()`` or when it is deinitialized.
    /// - Throws: ``StorageError`` `.lockUnavailable` (non-blocking) or `.lockTimeout`, both naming the path, or
    ///   an I/O error when the lock file cannot be opened.
    public func acquire(_ mode: Mode, timeout: Timeout = .forever) throws -> HeldLock {
        let operation = mode == .shared ? LOCK_SH : LOCK_EX
        let deadline: ContinuousClock.Instant? =
            if case .after(let duration) = timeout { ContinuousClock.now + duration } else { nil }
        var pause = Duration.microseconds(200)
        let folder = try openFolder()
        while true {
            let fd = try openLockFile(in: folder)
            do throws(Errno) {
                if case .forever = timeout {
                    try Sys.flock(fd, operation, path: path)
                } else {
                    try Sys.flock(fd, operation | LOCK_NB, path: path)
                }
                // A lock file replaced under us (deleted and recreated) would let two holders in: check that
                // the locked descriptor is still the file at `path`, and start over if not.
                if try Self.isStillNamed(fd, name, in: folder) {
                    return HeldLock(fd: fd, mode: mode, path: path, folder: folder, name: reclaimsFile ? name : nil)
                }
                Sys.close(fd)
                continue
            } catch let error where error.code == EWOULDBLOCK || error.code == EAGAIN {
                Sys.close(fd)
                switch timeout {
                case .nonBlocking:
                    throw StorageError(
                        .lockUnavailable, "the \(mode) lock is held by another process or thread", path: path,
                        recovery: "Try again later, or wait with a timeout")
                case .after(let duration):
                    if let deadline, ContinuousClock.now >= deadline {
                        throw StorageError(
                            .lockTimeout, "the \(mode) lock was still held by someone else after \(duration)",
                            path: path, recovery: "Find the process that holds it (fuser/lsof), or wait longer")
                    }
                    Self.sleep(pause)
                    pause = min(pause * 2, .milliseconds(20))
                case .forever:
                    continue
                }
            } catch {
                Sys.close(fd)
                throw error.storageError("cannot take the \(mode) lock", path: path)
            }
        }
    }

    /// Runs `body` while holding the lock, and releases it afterwards, also when `body` throws.
    /// - Throws: What ``acquire(_:timeout:)`` throws, or what `body` throws.
    public func withLock<T>(_ mode: Mode, timeout: Timeout = .forever, _ body: () throws -> T) throws -> T {
        let held = try acquire(mode, timeout: timeout)
        defer { held.release() }
        return try body()
    }

    private func openFolder() throws -> DirectoryHandle {
        if let folder { return folder }
        guard !name.isEmpty, path.utf8.last != UInt8(ascii: "/") else {
            throw StorageError(.invalidArgument, "the lock file's path names a folder, not a file", path: path)
        }
        do throws(Errno) {
            return try DirectoryHandle.open(path: LocalPath(path).parent.string)
        } catch {
            throw error.storageError("cannot open the folder of the lock file", path: path)
        }
    }

    private func openLockFile(in folder: DirectoryHandle) throws -> FileDescriptor {
        do {
            // Read-only is enough for flock(2), and lets the members of a shared group lock files they can
            // only read.
            // A FIFO in the lock file's place is refused: opened blocking, it would wait for a writer.
            let (fd, info) = try folder.openRegularFile(name, .create, permissions: permissions)
            if UInt32(info.st_mode & 0o777) != permissions.rawValue, info.st_uid == Sys.effectiveUserID {
                try? Sys.fchmod(fd, permissions)  // The umask filtered the mode; set it exactly.
            }
            return fd
        } catch {
            throw error.storageError("cannot open the lock file", path: path)
        }
    }

    /// Whether the open file `fd` is still the file named `name` in `folder` (never following a link).
    static func isStillNamed(_ fd: FileDescriptor, _ name: String, in folder: DirectoryHandle) throws(Errno) -> Bool {
        let held = try Sys.fstat(fd)
        guard let current = try folder.status(of: name) else { return false }
        return held.st_ino == current.st_ino && held.st_dev == current.st_dev
    }

    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
