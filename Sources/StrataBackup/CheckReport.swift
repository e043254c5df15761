public import StrataCore

/// What ``BackupRepository/check(readData:)`` found.
public struct CheckReport: Sendable, Hashable {
    /// How much pack data a check reads.
    public enum DataRead: Sendable, Hashable {
        /// None: the structure only (every index, snapshot and pack header, every chunk listed).
        case none
        /// Every blob of every pack is opened and verified against its id.
        case all
        /// This share of the packs (0 to 1), chosen at random, is read whole.
        case fraction(Double)
    }

    /// Snapshots read.
    public var snapshots = 0
    /// Packs whose header was checked against the index.
    public var packs = 0
    /// Blobs opened, decompressed and verified against their id.
    public var blobsRead = 0
    /// Packs in `data/` that no index lists (left by an interrupted backup or prune; the next prune removes them).
    public var unindexedPacks = 0
    /// The paths of the entries of `data/`, `index/` and `snapshots/` that are not the repository's files (names it
    /// never gives, folders, links): no operation reads, changes or deletes them. Not damage.
    public var foreign: [String] = []
    /// Every damage found, each a ``/StrataCore/StorageError`` naming the file (`path`), the blob (`key`) and the
    /// snapshot (`collection`) where they apply. Empty for a sound repository.
    public var problems: [StorageError] = []

    /// Whether nothing is damaged.
    public var isSound: Bool { problems.isEmpty }
}
