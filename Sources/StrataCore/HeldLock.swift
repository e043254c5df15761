import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock taken by ``FileLock/acquire(_:timeout:)``. Released once, by ``release()`` or at deinit.
public final class HeldLock: Sendable {
    /// How the lock is held.
    public let mode: FileLock.Mode
    /// The lock file's path.
    public let path: String
    // The descriptor whose open file description carries the lock; `nil` once released. Guarded by the mutex.
    private let descriptor: Mutex<FileDescriptor?>
    /// The lock file's folder, and its name when the file is reclaimed on release.
    private let folder: DirectoryHandle
    private let reclaimedName: String?

    init(fd: FileDescriptor, mode: FileLock.Mode, path: String, folder: DirectoryHandle, name: String?) {
        self.descriptor = Mutex(fd)
        self.mode = mode
        self.path = path
        self.folder = folder
        self.reclaimedName = name
    }

    /// Whether the lock is still held by this object.
    public var isHeld: Bool { descriptor.withLock { $0 != nil } }

    /// Releases the lock. Calling it again does nothing.
    public func release() {
        // Closing the descriptor drops the flock; no separate LOCK_UN is needed.
        descriptor.withLock { fd in
            if let open = fd {
                if let name = reclaimedName { reclaim(open, name) }
                Sys.close(open)
            }
            fd = nil
        }
    }

    deinit { release() }

    /// Removes the lock file while holding it exclusively (taken over without waiting from a shared hold), if
    /// its name still leads to it; see ``FileLock``'s rules. Failing to reclaim only leaves the file in place.
    private func reclaim(_ fd: FileDescriptor, _ name: String) {
        if mode == .shared {
            guard (try? Sys.flock(fd, LOCK_EX | LOCK_NB, path: path)) != nil else { return }
        }
        guard (try? FileLock.isStillNamed(fd, name, in: folder)) == true else { return }
        try? folder.unlink(name)
    }
}
