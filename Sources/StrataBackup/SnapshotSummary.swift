public import Foundation

/// What ``BackupRepository/snapshots()`` lists of a snapshot, and what a commit returns.
public struct SnapshotSummary: Sendable, Hashable {
    /// The snapshot id: 64 hex digits (any unique prefix names it).
    public var id: String
    /// When the snapshot was committed.
    public var time: Date
    /// The host that wrote it.
    public var host: String
    /// The snapshot whose unchanged files it reused, if any.
    public var parent: String?
    /// What the capture recorded (the store's catalog, the items left out).
    public var metadata: [String: String]
    /// How many files it holds.
    public var fileCount: Int
    /// The total size of its files.
    public var totalSize: Int64
    /// How many files were taken from the parent without being read (same path, size and modification time).
    public var reusedFiles: Int
    /// How many new blobs it stored.
    public var addedBlobs: Int
    /// How many bytes of packs it wrote.
    public var addedBytes: Int64
}
