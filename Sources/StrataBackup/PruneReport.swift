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
}
