/// What ``BackupRepository/snapshots()`` lists: every snapshot that reads, oldest first (the collection's elements),
/// and the files of `snapshots/` that do not.
public struct SnapshotList: RandomAccessCollection, Sendable, Hashable {
    /// The snapshots that read, oldest first.
    public let snapshots: [SnapshotSummary]
    /// The snapshot files that cannot be read, by name: each such snapshot is left out of the list.
    public let damaged: [DamagedFile]
    /// The paths of the entries of `snapshots/` whose names are not snapshot ids (not the repository's files):
    /// never read, changed or deleted.
    public let foreign: [String]

    /// The position of the oldest snapshot.
    public var startIndex: Int { snapshots.startIndex }
    /// The position past the newest snapshot.
    public var endIndex: Int { snapshots.endIndex }
    /// The snapshot at `position`, oldest first.
    public subscript(position: Int) -> SnapshotSummary { snapshots[position] }
}
