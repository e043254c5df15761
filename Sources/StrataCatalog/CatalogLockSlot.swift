import StrataCore
import StrataSystem
import Synchronization

/// One of ``CatalogLocks``' locks in this process: the lock file's descriptor (-1 until first used), behind the
/// mutex that orders this process's threads before `flock` orders the processes, and the thread that holds it.
final class CatalogLockSlot: Sendable {
    let descriptor = Mutex(FileDescriptor(rawValue: -1))
    /// The holder's ``Sys/currentThread`` while the lock is held, 0 otherwise. Only the holder stores its own
    /// identifier here, so a thread that reads its own identifier back holds the lock.
    let owner = Atomic<UInt>(0)
}
