public import StrataCore

/// What ``BackupRepository/rebuildIndex()`` did.
public struct IndexRebuildReport: Sendable, Hashable {
    /// Packs the new index lists.
    public var packs = 0
    /// Blobs the new index lists.
    public var blobs = 0
    /// Index files the new one replaced: every earlier one, intact or damaged (the damaged ones are in
    /// ``damaged``).
    public var indexFilesReplaced = 0
    /// The damaged index files the new one replaced.
    public var damaged: [DamagedFile] = []
    /// Packs whose own header cannot be read and that no intact index file lists: their blobs stay unlisted,
    /// and the pack is left in place (each error names it).
    public var unreadablePacks: [StorageError] = []
    /// The paths of the entries of `data/` and `index/` that are not the repository's files (names it never
    /// writes, folders): left untouched.
    public var foreign: [String] = []
}
