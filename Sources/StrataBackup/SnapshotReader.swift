public import StrataCore

/// One snapshot read back: its files, and their content on request. A ``CaptureSource`` for a restore.
///
/// Holds the repository's shared lock while it exists, so a prune cannot remove a pack it reads.
public final class SnapshotReader: CaptureSource {
    /// The snapshot's summary (its id, time, metadata).
    public let summary: SnapshotSummary
    /// Every file of the snapshot, in the order they were added.
    public let files: [CapturedFile]
    /// Each path's entries, in snapshot order: a capture may list a path twice (a copy made ahead of its instant,
    /// then the copy at it, the first withdrawn in the capture's own description).
    private let entries: [ExactString: [SnapshotManifest.Entry]]
    private let repository: BackupRepository
    private let index: RepositoryIndex
    private let heldLock: HeldLock
    private var pack: PackReader?

    init(
        repository: BackupRepository, id: String, manifest: SnapshotManifest, index: RepositoryIndex, lock: HeldLock
    ) {
        self.repository = repository
        summary = manifest.summary(id: id)
        files = manifest.files.map(\.file)
        var entries: [ExactString: [SnapshotManifest.Entry]] = [:]
        for entry in manifest.files { entries[ExactString(entry.file.path), default: []].append(entry) }
        self.entries = entries
        self.index = index
        heldLock = lock
    }

    deinit { heldLock.release() }

    /// Releases the repository's shared lock (a prune may run then); reads after it fail with `.closed`.
    /// Dropping the reader does the same.
    public func close() {
        heldLock.release()
        pack = nil
    }

    /// Writes the content of `file` to `descriptor` at its current offset.
    /// - Throws: ``StorageError`` `.corrupt` or `.authenticationFailed` naming the pack (`path`), the blob (`key`)
    ///   and the snapshot (`collection`); `.notFound` when the file is not in the snapshot; or an error writing.
    public func write(_ file: CapturedFile, to descriptor: Int32) throws {
        try forEachChunk(of: file) { chunk in
            do throws(Errno) {
                try ByteIO.write(descriptor, chunk, path: nil)
            } catch {
                throw error.storageError("cannot write a restored file", tier: file.tier, key: file.path)
            }
        }
    }

    /// The whole content of `file`, in memory.
    /// - Throws: What ``write(_:to:)`` throws.
    public func contents(of file: CapturedFile) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk(of: file) { bytes += $0 }
        return bytes
    }

    private func forEachChunk(of file: CapturedFile, _ body: ([UInt8]) throws -> Void) throws {
        guard heldLock.isHeld else {
            throw StorageError(.closed, "the snapshot reader was closed", recovery: "Open the snapshot again")
        }
        // The last entry described exactly as asked (the copy that stands when a path is listed twice), else the
        // path's last entry.
        let candidates = entries[ExactString(file.path)] ?? []
        guard let entry = candidates.last(where: { $0.file == file }) ?? candidates.last else {
            throw StorageError(
                .notFound, "the snapshot holds no such file", tier: file.tier, key: file.path)
        }
        // Checked before each chunk is read: a chunk list that repeats or runs past the size (a loop) is refused
        // before more than the file's size is written.
        var total: Int64 = 0
        let size = entry.file.size
        for id in entry.chunks {
            do {
                let location = try locate(id)
                guard Int64(location.entry.rawLength) <= size - total else {
                    throw sizeMismatch(file, size: size, "more than")
                }
                let chunk = try pack(location.pack).blob(location.entry, id: id)
                total += Int64(chunk.count)
                try body(chunk)
            } catch var error as StorageError {
                error.collection = summary.id
                throw error
            }
        }
        guard total == size else {
            var error = sizeMismatch(file, size: size, "\(total) bytes, not")
            error.collection = summary.id
            throw error
        }
    }

    private func sizeMismatch(_ file: CapturedFile, size: Int64, _ amount: String) -> StorageError {
        StorageError(
            .corrupt, "the file's chunks add up to \(amount) its size \(size)", tier: file.tier, key: file.path,
            recovery: "Run `check`; the snapshot is damaged; restore another one")
    }

    /// Where the blob `id` is.
    private func locate(_ id: BlobID) throws -> RepositoryIndex.Location {
        guard let location = index.blobs[id] else {
            var error = StorageError(
                .corrupt, "a chunk of the snapshot is in no pack of the index (missing)", key: id.description,
                path: repository.indexFolder.path,
                recovery: "Run `check`; restore the repository's index and packs from a copy, or forget the snapshot")
            error.operation = "read blob"
            throw error
        }
        return location
    }

    /// The reader of the pack `name`, kept open for the next blob.
    private func pack(_ name: String) throws -> PackReader {
        if let pack, pack.name == name { return pack }
        pack = nil
        let opened = try PackReader(name: name, in: repository.data, keys: repository.keys)
        pack = opened
        return opened
    }
}
