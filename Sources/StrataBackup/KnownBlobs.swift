import Synchronization

/// The blobs a snapshot being written need not store again: those of the index when it began, and those it
/// stored since. Workers ask; the writer adds, in order.
final class KnownBlobs: Sendable {
    private let indexed: Set<BlobID>
    private let added = Mutex(Set<BlobID>())

    init(indexed: Set<BlobID>) { self.indexed = indexed }

    func contains(_ id: BlobID) -> Bool {
        indexed.contains(id) || added.withLock { $0.contains(id) }
    }

    func insert(_ id: BlobID) { _ = added.withLock { $0.insert(id) } }
}
