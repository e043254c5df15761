/// What ``BackupRepository/prune()`` did.
public struct PruneReport: Sendable, Hashable {
    /// Packs deleted whole (nothing in them was needed, or their needed blobs were copied elsewhere).
    public var packsDeleted = 0
    /// Packs written anew with the needed blobs of partly used packs.
    public var packsWritten = 0
    /// Blobs no kept snapshot needs, removed.
    public var blobsRemoved = 0
    /// Bytes of packs deleted, less the bytes of packs written.
    public var bytesFreed: Int64 = 0
    /// Index files replaced by the one new index.
    public var indexFilesReplaced = 0
    /// The index and snapshot files that could not be read, left as they are. A damaged snapshot's needs are unknown,
    /// so while one is there no blob is removed (only blobs stored twice); a damaged index file's packs are read
    /// from their own headers.
    public var damaged: [DamagedFile] = []
    /// Blobs that readable snapshots need and that no index file or pack header lists: those snapshots cannot be
    /// restored whole (`check` names them). Nothing they could need is removed.
    public var missingBlobs = 0
    /// The paths of the entries of `data/` that are not packs this repository wrote (names it never gives, folders,
    /// files whose header does not read): left untouched.
    public var foreign: [String] = []
}
