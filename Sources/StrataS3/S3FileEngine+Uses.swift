import Foundation
import StrataFiles
import Synchronization

// Access dates for cache areas, kept in the process (see `S3UseRecord`).
extension S3FileEngine {
    /// Records that a file was used now, in this process: S3 keeps no access time, and setting one (a copy of the
    /// object onto itself) would cost a request per read. ``metadata(_:)`` reports the later of the last use
    /// recorded here and the object's modification date as its ``/StrataFiles/FileMetadata/accessDate``, so a cache
    /// area's least-recently-used order holds for the uses this process makes; another process's uses are not seen (it
    /// orders by its own uses and by writes).
    public func markUsed(_ key: String) {
        uses.withLock { $0.record(key, at: Date()) }
    }

    /// The access date of a file modified at `modified`: the later of that and its last use recorded here.
    func accessDate(of key: String, modified: Date) -> Date {
        max(modified, uses.withLock { $0.lastUse(of: key) } ?? modified)
    }

    /// Forgets the uses of a file deleted through this engine.
    func forgetUse(of key: String) {
        uses.withLock { $0.forget(key) }
    }
}
