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
/// Built on `flock(2)` over a dedicated lock file. Each acquisition opens its own descriptor, so the lock
/// also excludes other threads of the same process, and the kernel releases it when the holder's descriptor
/// closes, including when the process dies (even by `SIGKILL`). Lock files are never deleted: deleting one
/// while another process waits on it would let two holders in.
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
        case nonBlocking
        /// Wait until the lock is free.
        case forever
        /// Wait at most this long, then fail with ``StorageError/Code/lockTimeout``.
        case after(Duration)

        /// Waits at most `seconds`.
        public static func seconds(_ seconds: Double) -> Timeout { .after(.milliseconds(Int64(seconds * 1000))) }
    }

    /// The lock file's path. It is created (mode 0600) on first use and never deleted.
    public let path: String

    /// Describes the lock kept in the file at `path`; nothing is opened until ``acquire(_:timeout:)``.
    public init(path: String) {
        self.path = path
    }

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
        while true {
            let fd = try openLockFile()
            do throws(Errno) {
                if case .forever = timeout {
                    try Sys.flock(fd, operation, path: path)
                } else {
                    try Sys.flock(fd, operation | LOCK_NB, path: path)
                }
                // A lock file replaced under us (deleted and recreated) would let two holders in: check that
                // the locked descriptor is still the file at `path`, and start over if not.
                if try isStillAtPath(fd) { return HeldLock(fd: fd, mode: mode, path: path) }
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

    private func openLockFile() throws -> Int32 {
        do {
            return try Sys.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
        } catch {
            throw error.storageError("cannot open the lock file", path: path)
        }
    }

    private func isStillAtPath(_ fd: Int32) throws(Errno) -> Bool {
        do throws(Errno) {
            let held = try Sys.fstat(fd)
            let current = try Sys.lstat(path)
            return held.st_ino == current.st_ino && held.st_dev == current.st_dev
        } catch  where error.code == ENOENT {
            return false
        }
    }

    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}

/// A lock taken by ``FileLock/acquire(_:timeout:)``. Released once, by ``release()`` or at deinit.
public final class HeldLock: Sendable {
    /// How the lock is held.
    public let mode: FileLock.Mode
    /// The lock file's path.
    public let path: String
    // The descriptor whose open file description carries the lock; `nil` once released. Guarded by the mutex.
    private let descriptor: Mutex<Int32?>

    init(fd: Int32, mode: FileLock.Mode, path: String) {
        self.descriptor = Mutex(fd)
        self.mode = mode
        self.path = path
    }

    /// Whether the lock is still held by this object.
    public var isHeld: Bool { descriptor.withLock { $0 != nil } }

    /// Releases the lock. Calling it again does nothing.
    public func release() {
        // Closing the descriptor drops the flock; no separate LOCK_UN is needed.
        descriptor.withLock { fd in
            if let open = fd { Sys.close(open) }
            fd = nil
        }
    }

    deinit { release() }
}
