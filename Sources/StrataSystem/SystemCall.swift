import Synchronization

/// The system calls that pass through ``Sys`` and can have faults injected.
package enum SystemCall: String, Sendable, Hashable, CaseIterable {
    case open, read, write, fsync, rename, unlink, mkdir, ftruncate, lock, chmod, stat
    case link
    case map
    case terminal
    case writeback
}
