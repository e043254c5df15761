import Synchronization

/// One of ``CatalogLocks``' locks in this process: the lock file's descriptor (-1 until first used), behind the
/// mutex that orders this process's threads before `flock` orders the processes.
final class CatalogLockSlot: Sendable {
    let descriptor = Mutex<Int32>(-1)
}
