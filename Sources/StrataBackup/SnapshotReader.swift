import Foundation
public import StrataCore
import StrataFiles
public import StrataSystem

/// One snapshot read back: its files, and their content on request. A ``/StrataCore/CaptureSource`` for a restore.
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
    /// The packs read lately, kept open for the next blobs (at most ``openPacks``).
    private var packs: [String: PackReader] = [:]

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
        packs = [:]
    }

    /// Writes the content of `file` to `descriptor` at its current offset.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` or `.authenticationFailed` naming the pack (`path`), the blob
    ///   (`key`) and the snapshot (`collection`); `.notFound` when the file is not in the snapshot; or an error
    ///   writing.
    public func write(_ file: CapturedFile, to descriptor: FileDescriptor) throws {
        try write([file], opening: { _ in descriptor }, finishing: { _, _, _ in })
    }

    /// Writes the content of each of `files`, one after the other, reading ahead: while one file is written, the
    /// blobs that follow (of it and of the next files) are read, authenticated, decompressed and checked against
    /// their ids on worker threads, holding at most 32 MiB of them (one larger blob alone). Each file is finished
    /// with the CRC-32 of its content, computed by the workers from the blobs they checked and combined here.
    /// - Throws: What ``write(_:to:)`` throws, or what `open` or `finish` throw: the first error in file order.
    public func write(
        _ files: [CapturedFile], opening open: (CapturedFile) throws -> FileDescriptor,
        finishing finish: (_ file: CapturedFile, _ descriptor: FileDescriptor, _ crc32: UInt32?) throws -> Void
    ) throws {
        try ensureOpen()
        var work = readAhead()
        defer { readAheadPeak = max(readAheadPeak, work.peakCost) }
        var sizes: [Int64] = []
        // The file being written (its index in `files`, descriptor, bytes written and their CRC-32), and the next
        // one to open.
        var current: (file: Int, descriptor: FileDescriptor, bytes: Int64, crc: UInt32)?
        var next = 0
        func startNext() throws {
            current = (next, try open(files[next]), 0, 0)
            next += 1
        }
        func finishCurrent() throws {
            guard let written = current else { return }
            guard written.bytes == sizes[written.file] else {
                let file = files[written.file]
                throw tagged(sizeMismatch(file, size: sizes[written.file], "\(written.bytes) bytes, not"))
            }
            current = nil
            try finish(files[written.file], written.descriptor, written.crc)
        }
        // Files without chunks (empty) have no piece: they are opened and finished when a later file's first
        // piece, or the end, passes them.
        func accept(_ piece: Piece) throws {
            if current?.file != piece.file {
                while next < piece.file {
                    try startNext()
                    try finishCurrent()
                }
                try startNext()
            }
            for (chunk, crc) in zip(piece.chunks, piece.crcs) {
                try Self.write(chunk, to: current!.descriptor, file: files[piece.file])
                current!.bytes += Int64(chunk.count)
                current!.crc = Zlib.crc32Combine(current!.crc, crc, secondLength: chunk.count)
            }
            if piece.isLast { try finishCurrent() }
        }
        for (index, file) in files.enumerated() {
            let planned: (jobs: [Job], size: Int64)
            do {
                planned = try plan(file, index: index)
            } catch {
                // Earlier files first: their errors, if any, come before this one.
                try work.finish(consume: accept)
                throw error
            }
            sizes.append(planned.size)
            for job in planned.jobs {
                try work.submit(cost: job.cost, job.run, consume: accept)
            }
        }
        try work.finish(consume: accept)
        while next < files.count {
            try startNext()
            try finishCurrent()
        }
    }

    /// The whole content of `file`, in memory.
    /// - Throws: What ``write(_:to:)`` throws.
    public func contents(of file: CapturedFile) throws -> [UInt8] {
        try ensureOpen()
        var bytes: [UInt8] = []
        let (jobs, size) = try plan(file, index: 0)
        var work = readAhead()
        defer { readAheadPeak = max(readAheadPeak, work.peakCost) }
        for job in jobs {
            try work.submit(cost: job.cost, job.run) { bytes += $0.chunks.joined() }
        }
        try work.finish { bytes += $0.chunks.joined() }
        guard Int64(bytes.count) == size else {
            throw tagged(sizeMismatch(file, size: size, "\(bytes.count) bytes, not"))
        }
        return bytes
    }

    /// The bytes the blobs being read ahead may hold together, the piece being written included: 32 MiB (one run
    /// larger than that is read alone). Tests lower it.
    var readAheadBudget = 32 << 20
    /// The most bytes the read-ahead held at once (by the jobs' costs) in this reader's writes so far.
    private(set) var readAheadPeak = 0

    /// The workers that read ahead: one per core, and two more jobs in flight so that none waits while the owner
    /// writes.
    private func readAhead() -> OrderedWork<Piece> {
        OrderedWork(threads: max(1, ProcessInfo.processInfo.activeProcessorCount) + 2, budget: readAheadBudget)
    }

    private func ensureOpen() throws {
        guard heldLock.isHeld else {
            throw StorageError(.closed, "the snapshot reader was closed", recovery: "Open the snapshot again")
        }
    }

    /// Blobs of one file, read and checked by a worker.
    private struct Piece: Sendable {
        var file: Int
        var chunks: [[UInt8]]
        /// Each chunk's CRC-32.
        var crcs: [UInt32]
        /// Whether the file's last blob is among them.
        var isLast: Bool
    }

    /// A worker's task: adjacent blobs of one pack, read with one `pread`.
    private struct Job {
        var cost: Int
        var run: @Sendable () throws -> Piece
    }

    /// The snapshot's entry for `file`: the last one described exactly as asked (the copy that stands when a path
    /// is listed twice), else the path's last entry.
    private func entry(of file: CapturedFile) throws -> SnapshotManifest.Entry {
        let candidates = entries[ExactString(file.path)] ?? []
        guard let entry = candidates.last(where: { $0.file == file }) ?? candidates.last else {
            throw StorageError(
                .notFound, "the snapshot holds no such file", tier: file.tier, key: file.path)
        }
        return entry
    }

    /// The jobs that read `file`'s blobs, in order: adjacent blobs of a pack read together, up to ``largestRun``
    /// bytes sealed and plain.
    /// - Returns: The jobs, and the file's size.
    private func plan(_ file: CapturedFile, index: Int) throws -> (jobs: [Job], size: Int64) {
        let (size, blobs) = try self.blobs(of: file)
        var jobs: [Job] = []
        var group: [(BlobID, PackEntry)] = []
        var groupPack: PackReader?
        var groupBytes = 0
        let collection = summary.id
        func flush(isLast: Bool) {
            guard let reader = groupPack, !group.isEmpty else { return }
            let run = group
            let cost = run.reduce(0) { $0 + $1.1.length + 2 * $1.1.rawLength }
            jobs.append(
                Job(cost: cost) {
                    do {
                        let chunks = try reader.blobs(run)
                        let crcs = chunks.map { chunk in chunk.withUnsafeBytes { LibDeflate.crc32($0) } }
                        return Piece(file: index, chunks: chunks, crcs: crcs, isLast: isLast)
                    } catch var error as StorageError {
                        error.collection = collection
                        throw error
                    }
                })
            group = []
            groupBytes = 0
        }
        for (id, location) in blobs {
            let reader: PackReader
            do { reader = try pack(location.pack) } catch let error as StorageError { throw tagged(error) }
            let bytes = location.entry.length + location.entry.rawLength
            if let last = group.last?.1,
                reader !== groupPack || last.offset + last.length != location.entry.offset
                    || groupBytes + bytes > Self.largestRun
            {
                flush(isLast: false)
            }
            groupPack = reader
            group.append((id, location.entry))
            groupBytes += bytes
        }
        flush(isLast: true)
        return (jobs, size)
    }

    /// Where each blob of `file`'s content is, in order, and the file's size.
    ///
    /// The chunk list is checked against the file's size before anything is read: a list that repeats or runs past
    /// the size (a loop) is refused.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when the file is not in the snapshot, `.corrupt` for a chunk
    ///   that no pack holds or chunks that do not add up to the size, naming the snapshot (`collection`).
    func blobs(of file: CapturedFile) throws -> (size: Int64, blobs: [(BlobID, RepositoryIndex.Location)]) {
        let entry = try entry(of: file)
        var blobs: [(BlobID, RepositoryIndex.Location)] = []
        var total: Int64 = 0
        let size = entry.file.size
        do {
            for id in entry.chunks {
                let location = try locate(id)
                guard Int64(location.entry.rawLength) <= size - total else {
                    throw sizeMismatch(file, size: size, "more than")
                }
                total += Int64(location.entry.rawLength)
                blobs.append((id, location))
            }
            guard total == size else { throw sizeMismatch(file, size: size, "\(total) bytes, not") }
        } catch let error as StorageError {
            throw tagged(error)
        }
        return (size, blobs)
    }

    /// The most bytes, sealed and plain together, of a run of adjacent blobs read by one job: 4 MiB (a blob larger
    /// than that is read alone). Counted plain too: compressed text inflates to several times its sealed size.
    static let largestRun = 4 << 20

    private static func write(_ chunk: [UInt8], to descriptor: FileDescriptor, file: CapturedFile) throws {
        do throws(Errno) {
            try ByteIO.write(descriptor, chunk, path: nil)
        } catch {
            throw error.storageError("cannot write a restored file", tier: file.tier, key: file.path)
        }
    }

    private func tagged(_ error: StorageError) -> StorageError {
        var error = error
        error.collection = summary.id
        return error
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
            if let damaged = index.damaged.first {
                // The chunk may be in a pack only that file lists: the packs list their own blobs.
                error.message += "; \(index.damaged.count) index file(s) could not be read and were left out"
                error.path = damaged.error.path
                error.recovery = "Run `check --repair` to rebuild the index from the packs, then restore again"
            }
            error.operation = "read blob"
            throw error
        }
        return location
    }

    /// The reader of the pack `name`, kept open for the next blobs.
    private func pack(_ name: String) throws -> PackReader {
        if let pack = packs[name] { return pack }
        if packs.count >= Self.openPacks { packs = [:] }
        let opened = try PackReader(name: name, in: repository.data, keys: repository.keys)
        packs[name] = opened
        return opened
    }

    /// The most packs kept open between reads.
    static let openPacks = 16
}
