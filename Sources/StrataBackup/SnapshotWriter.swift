import Foundation
public import StrataCore
import StrataFiles
public import StrataSystem

/// A snapshot being written: a ``/StrataCore/CaptureSink`` that chunks, deduplicates, compresses and seals what the
/// tiers hand it, and a commit point.
///
/// Nothing of the snapshot is visible until ``commit(metadata:)``: packs are made durable first, then the index
/// file listing them, then the snapshot file. A process killed before the snapshot file is renamed into place
/// leaves at most packs and an index that no snapshot references (removed by the next ``BackupRepository/prune()``)
/// and temporaries (removed by the next operation).
///
/// **Reuse of the parent.** A file whose path (exactly), tier, size and modification time (to the nanosecond)
/// equal a file of the parent snapshot takes the parent's chunks without being read; pass `readsEverything` to
/// ``BackupRepository/beginSnapshot(parent:host:readsEverything:)`` to read every file anyway.
///
/// Not thread-safe: one capture writes into it at a time. Holds the repository's shared lock from
/// ``BackupRepository/beginSnapshot(parent:host:readsEverything:)`` to the commit or ``abandon()``.
public final class SnapshotWriter: CaptureSink {
    /// One chunk after its worker: its id, and the sealed blob unless the repository holds it already.
    private struct Processed {
        var file: Int
        var id: BlobID
        var rawLength: Int
        var sealed: [UInt8]?
    }

    private let repository: BackupRepository
    private var heldLock: HeldLock?
    private let parentID: String?
    /// The parent's files, in its order; empty with `readsEverything`.
    private let parentFiles: [SnapshotManifest.Entry]
    /// Where in ``parentFiles`` the next file is looked for first: a capture adds files in the same order each
    /// time, so the next file of an unchanged store is the parent's next one, found without hashing its path.
    private var parentCursor = 0
    /// The last index of each path of ``parentFiles``, made at the first file not found at the cursor.
    private var parentIndex: [ExactString: Int]?
    private let host: String
    /// The blobs not to store again, from the index read when the first chunk needs it: a backup whose every file
    /// is reused from the parent never reads the index.
    private var known: KnownBlobs?
    private var work: OrderedWork<Processed>
    private var files: [SnapshotManifest.Entry] = []
    private var pack: PackWriter?
    private var records: [PackRecord] = []
    private var reusedFiles = 0
    private var addedBlobs = 0
    private var addedBytes: Int64 = 0
    private var buffer: [UInt8] = []
    private var isOpen = true

    /// The snapshot and index files of the repository that could not be read, left out: the parent was chosen among
    /// the other snapshots, and a blob only a damaged index file lists is stored again. Index files are read when
    /// the first chunk is stored, so the list is complete once the snapshot is committed.
    public private(set) var damaged: [DamagedFile]

    init(
        repository: BackupRepository, lock: HeldLock, parent: (String, SnapshotManifest)?,
        host: String, readsEverything: Bool, damaged: [DamagedFile]
    ) {
        self.repository = repository
        self.damaged = damaged
        heldLock = lock
        parentID = parent?.0
        parentFiles = readsEverything ? [] : parent?.1.files ?? []
        self.host = host
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        // Each job holds its chunk and its sealed copy: twice the largest chunk.
        work = OrderedWork(threads: threads, budget: max(24 << 20, 4 * repository.chunker.maximum))
    }

    deinit {
        if isOpen { abandon() }
    }

    /// Stores one file, reading `descriptor` with `pread` from offset 0 for exactly `file.size` bytes.
    /// - Throws: ``/StrataCore/StorageError`` `.corruptData`-like `.corrupt` naming the path when the file ends early,
    ///   an error reading the repository's index (read at the first chunk) or writing the repository.
    public func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        try ensureOpen()
        if reuse(file) { return }
        let maximum = repository.chunker.maximum
        if buffer.count < 2 * maximum { buffer = [UInt8](repeating: 0, count: 2 * maximum) }
        var filled = 0
        var offset: Int64 = 0
        files.append(SnapshotManifest.Entry(file))
        let index = files.count - 1
        while true {
            // Fill the buffer to twice the largest chunk, or to the end of the file.
            while filled < buffer.count, offset < file.size {
                let want = Int(min(Int64(buffer.count - filled), file.size - offset))
                let got: Int
                do {
                    got = try ByteIO.pread(descriptor, into: &buffer, filled..<(filled + want), at: offset)
                } catch {
                    throw error.storageError("cannot read a file being backed up", tier: file.tier, key: file.path)
                }
                if got == 0 {
                    throw StorageError(
                        .corrupt, "the file ended at \(offset) bytes, before its size of \(file.size)", tier: file.tier,
                        key: file.path, recovery: "The capture must hold the file unchanged while it is read")
                }
                filled += got
                offset += Int64(got)
            }
            let isEnd = offset >= file.size
            var start = 0
            while start < filled, isEnd || filled - start >= maximum {
                let length = buffer.withUnsafeBytes {
                    repository.chunker.cut(UnsafeRawBufferPointer(rebasing: $0[start..<filled]), isEnd: isEnd)
                }
                try submit(Array(buffer[start..<(start + length)]), file: index)
                start += length
            }
            if isEnd { break }
            buffer.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: filled - start)
            }
            filled -= start
        }
    }

    /// Stores one file whose content is in memory.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when `file.size` is not `contents.count`, an error
    ///   reading the repository's index (read at the first chunk) or writing the repository.
    public func add(_ file: CapturedFile, contents: [UInt8]) throws {
        try ensureOpen()
        guard file.size == Int64(contents.count) else {
            throw StorageError(
                .invalidArgument, "the file's size \(file.size) is not its content's \(contents.count) bytes",
                tier: file.tier, key: file.path)
        }
        if reuse(file) { return }
        files.append(SnapshotManifest.Entry(file))
        let index = files.count - 1
        var start = 0
        while start < contents.count {
            let length = contents.withUnsafeBytes {
                repository.chunker.cut(UnsafeRawBufferPointer(rebasing: $0[start...]), isEnd: true)
            }
            try submit(Array(contents[start..<(start + length)]), file: index)
            start += length
        }
    }

    /// Makes the snapshot durable and visible: the commit point.
    /// - Parameter metadata: What the capture records beside the files (the store's catalog, the items left out).
    /// - Returns: The snapshot's summary.
    /// - Throws: ``/StrataCore/StorageError`` when the repository cannot be written; the snapshot does not exist then.
    public func commit(metadata: [String: String] = [:]) throws -> SnapshotSummary {
        try ensureOpen()
        defer { abandon() }
        try work.finish { try store($0) }
        try closePack()
        if !records.isEmpty {
            _ = try RepositoryIndex.write(records, in: repository.indexFolder, keys: repository.keys)
        }
        let manifest = SnapshotManifest(
            time: Date(), host: host, parent: parentID, metadata: metadata, files: files,
            reusedFiles: reusedFiles, addedBlobs: addedBlobs, addedBytes: addedBytes)
        let id = BackupRepository.randomName()
        try manifest.write(as: id, in: repository.snapshotFolder, keys: repository.keys)
        return manifest.summary(id: id)
    }

    /// Gives the snapshot up: nothing of it becomes visible. Packs already written stay until the next prune.
    public func abandon() {
        isOpen = false
        try? work.finish { _ in }
        pack = nil
        heldLock?.release()
        heldLock = nil
    }

    private func ensureOpen() throws {
        guard isOpen else {
            throw StorageError(.closed, "the snapshot was committed or abandoned", recovery: "Begin a new snapshot")
        }
    }

    private func reuse(_ file: CapturedFile) -> Bool {
        guard let found = parentEntry(file) else { return false }
        parentCursor = found + 1
        files.append(SnapshotManifest.Entry(file, chunks: parentFiles[found].chunks))
        reusedFiles += 1
        return true
    }

    /// The index of the parent's entry `file` may reuse: the one at the cursor when it matches, else the last
    /// entry of its path when that one matches.
    private func parentEntry(_ file: CapturedFile) -> Int? {
        if parentCursor < parentFiles.count, parentFiles[parentCursor].matches(file) { return parentCursor }
        if parentFiles.isEmpty { return nil }
        if parentIndex == nil {
            var index: [ExactString: Int] = [:]
            index.reserveCapacity(parentFiles.count)
            for (position, entry) in parentFiles.enumerated() { index[ExactString(entry.file.path)] = position }
            parentIndex = index
        }
        guard let found = parentIndex?[ExactString(file.path)], parentFiles[found].matches(file) else { return nil }
        return found
    }

    private func submit(_ chunk: [UInt8], file: Int) throws {
        let keys = repository.keys
        let known = try knownBlobs()
        try work.submit(
            cost: chunk.count * 2,
            {
                let id = keys.id(of: chunk)
                guard known.claim(id) else {
                    return Processed(file: file, id: id, rawLength: chunk.count, sealed: nil)
                }
                let sealed = try chunk.withUnsafeBytes { try BlobCodec.seal($0, id: id, type: 0, keys: keys) }
                return Processed(file: file, id: id, rawLength: chunk.count, sealed: sealed)
            }, consume: { try store($0) })
    }

    /// Lists a processed chunk in its file, and adds its blob to the pack when its job sealed it.
    private func store(_ chunk: Processed) throws {
        files[chunk.file].chunks.append(chunk.id)
        // Only the job that claimed the blob sealed it: it goes to a pack once.
        guard let sealed = chunk.sealed else { return }
        if pack == nil { pack = try PackWriter(in: repository.data, keys: repository.keys) }
        try pack!.add(sealed, id: chunk.id, type: 0, rawLength: chunk.rawLength)
        addedBlobs += 1
        if pack!.size >= repository.configuration.packSize { try closePack() }
    }

    /// The blobs the repository holds, read from its index the first time a chunk needs them; the index files that
    /// cannot be read are left out (their blobs are stored again) and added to ``damaged``.
    /// - Throws: ``/StrataCore/StorageError`` when the index folder cannot be listed.
    private func knownBlobs() throws -> KnownBlobs {
        if let known { return known }
        let index = try RepositoryIndex.load(
            from: repository.indexFolder, keys: repository.keys, maximumChunk: repository.configuration.maximumChunk)
        damaged += index.damaged
        let loaded = KnownBlobs(indexed: Set(index.blobs.keys))
        known = loaded
        return loaded
    }

    private func closePack() throws {
        guard let current = pack else { return }
        pack = nil
        let record = try current.finish()
        addedBytes += Int64(record.size)
        records.append(record)
    }
}
