import Synchronization

/// The blobs a snapshot being written need not store again: those of the index when it began, and those a job of
/// this snapshot has claimed since. Workers claim each blob they are about to compress and seal, so two jobs of the
/// same content (a file backed up twice, a chunk repeated) never both do that work: the first to claim it does.
final class KnownBlobs: Sendable {
    private let indexed: Set<BlobID>
    private let claimed = Mutex(Set<BlobID>())

    init(indexed: Set<BlobID>) { self.indexed = indexed }

    /// Claims `id` for the calling job.
    /// - Returns: `true` when the repository lacks the blob and no job of this snapshot claimed it before: the
    ///   caller must then have it stored; `false` when the blob is held or claimed already.
    func claim(_ id: BlobID) -> Bool {
        !indexed.contains(id) && claimed.withLock { $0.insert(id).inserted }
    }
}
