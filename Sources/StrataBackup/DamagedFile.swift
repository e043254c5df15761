public import StrataCore

/// An index file or snapshot file of a backup repository that cannot be read: damaged, sealed under another key, or
/// written by a newer Strata. Operations leave it out and go on with the others, and say so: reads use the other
/// index files, `snapshots()` lists the other snapshots, and nothing is deleted because of what it might hold.
public struct DamagedFile: Sendable, Hashable, CustomStringConvertible {
    /// Which folder of the repository it is in.
    public enum Kind: String, Sendable, Hashable {
        /// An index file of `index/`: which pack holds which blobs. ``BackupRepository/rebuildIndex()`` replaces
        /// it from the packs.
        case index
        /// A snapshot file of `snapshots/`: that snapshot cannot be restored until the file is put back from a copy.
        case snapshot
    }

    /// Which folder of the repository it is in.
    public let kind: Kind
    /// Its name in that folder: 64 hex digits (for a snapshot, its id).
    public let name: String
    /// Why it cannot be read, naming the file (`path`).
    public let error: StorageError

    /// One line: which file, and why it was left out.
    public var description: String { "\(kind.rawValue) file \(name) left out: \(error)" }
}
