import Foundation
import StrataCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileStore {
    // MARK: gzip

    /// Compresses one file to a gzip file at `destination` (a path outside or inside the store's folder),
    /// replacing it atomically. The output is a series of gzip members (RFC 1952), one per MiB of input, each
    /// compressed with libdeflate on its own core; `gzip -d` and every gzip reader join them.
    /// - Returns: The compressed size.
    /// - Throws: ``/StrataCore/StorageError``: `.notFound`, `.cancelled` (no output left), or an I/O error.
    @discardableResult
    public func exportGzip(_ key: String, to destination: String, options: ExportOptions = ExportOptions()) throws
        -> Int
    {
        try check(key)
        return try engine.withReader(key) { reader in
            let total = reader.size
            let modified = UInt32(truncatingIfNeeded: Int(reader.modificationDate.timeIntervalSince1970))
            var written = 0
            try AtomicFile.write(to: destination, permissions: 0o600) { writer in
                var header: [UInt8] = [0x1F, 0x8B, 8, 0]
                header += littleEndian(modified, 4)
                header += [options.level >= 9 ? 2 : options.level <= 1 ? 4 : 0, 3]  // XFL, OS = Unix
                let members = GzipMembers(
                    blockSize: options.gzipMemberSize, level: options.level, threads: options.threads, header: header)
                _ = try members.compress(
                    read: { buffer in try reader.read(into: buffer) },
                    sink: { member in try writer.write(member) },
                    progress: { done in
                        if options.isCancelled?() == true {
                            throw StorageError(.cancelled, "the export was cancelled", tier: .files, key: key)
                        }
                        options.progress?(TransferProgress(bytesDone: done, bytesTotal: total, currentKey: key))
                    })
                written = writer.count
            }
            return written
        }
    }

    // MARK: zip

    /// Writes the files whose keys start with any of `prefixes` to a zip archive at `destination`, replacing it
    /// atomically.
    ///
    /// A prefix is a plain string prefix, as in ``list(prefix:recursive:)``: `photos` takes `photos/a.jpg` and
    /// `photos-old/b.jpg` (and a file `photos`); `photos/` takes one folder; `""` takes everything. Entries use
    /// deflate, or are stored when their data does not compress (JPEG, most audio, compressed PDFs); names are
    /// UTF-8, timestamps are kept, and ZIP64 is used past 4 GiB or 65,535 entries. Large files are compressed
    /// block by block on every core; small ones several at a time.
    ///
    /// A file deleted by another program between the listing and its turn is left out and reported in
    /// ``ExportSummary/missingKeys``; the archive is still whole and valid.
    /// - Returns: The number of entries, the archive's size and the keys that were gone.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (nothing is written) when a prefix matches no file, or
    ///   `""` is given and the store has none: an empty archive is never a success.
    @discardableResult
    public func exportZip(
        _ prefixes: [String], to destination: String, options: ExportOptions = ExportOptions()
    ) throws -> ExportSummary {
        var keys: [String] = []
        for prefix in prefixes {
            let found = try list(prefix: prefix)
            guard !found.isEmpty else {
                // An archive of nothing is a mistake (a mistyped prefix), never a success.
                throw StorageError(
                    .notFound, prefix.isEmpty ? "there are no files to export" : "no file key starts with this prefix",
                    tier: .files, key: prefix.isEmpty ? nil : prefix, recovery: "List the files with list(prefix:)")
            }
            keys += found
        }
        // Keys are told apart by their scalars (`café` in NFC and NFD are two files), as the store keeps them.
        keys = Array(Set(keys.map { ExactString($0) })).sorted().map(\.string)
        var missing: [String] = []
        var sizes: [ExactString: Int] = [:]
        for key in keys {
            guard let size = try metadata(key)?.size else {
                missing.append(key)
                continue
            }
            sizes[ExactString(key)] = size
        }
        let total = sizes.values.reduce(0, +)
        var central: [ZipFormat.Record] = []
        var done = 0
        var archiveSize = 0
        try AtomicFile.write(to: destination, permissions: 0o600) { writer in
            // Files under `wholeEntryLimit` are compressed whole, each on a worker, while this thread writes the
            // finished ones in order; a larger file streams through the block-parallel deflater.
            var work = OrderedWork<SmallEntry?>(threads: options.threads)
            var levels = LevelBlend(level: options.level)
            func consume(_ entry: SmallEntry?) throws {
                guard let entry else { return }
                central.append(try writeSmallEntry(entry, into: &writer, threshold: options.zip64Threshold))
                done += entry.size
                options.progress?(TransferProgress(bytesDone: done, bytesTotal: total, currentKey: entry.key))
            }
            for key in keys {
                if options.isCancelled?() == true {
                    throw StorageError(.cancelled, "the export was cancelled", tier: .files)
                }
                guard let size = sizes[ExactString(key)] else { continue }
                if size < Self.wholeEntryLimit {
                    let level = levels.level(forNext: size)
                    try work.submit(
                        cost: 2 * size, { [self] in try compressSmall(key, level: level) }, consume: consume)
                    continue
                }
                try work.finish(consume: consume)
                let entry = try writeLargeEntry(key, into: &writer, options: options) { bytes in
                    options.progress?(TransferProgress(bytesDone: done + bytes, bytesTotal: total, currentKey: key))
                }
                if let entry { central.append(entry) }
                done += size
            }
            try work.finish(consume: consume)
            try writeCentralDirectory(central, into: &writer, threshold: options.zip64Threshold)
            archiveSize = writer.count
        }
        let written = Set(central.map { ExactString($0.name) })
        missing += keys.filter { sizes[ExactString($0)] != nil && !written.contains(ExactString($0)) }
        return ExportSummary(
            entries: central.count, bytes: archiveSize,
            missingKeys: missing.map { ExactString($0) }.sorted().map(\.string))
    }

    /// Files smaller than this are compressed whole (one libdeflate call on one core); larger ones stream.
    static let wholeEntryLimit = 8 << 20

    struct SmallEntry {
        var key: String
        var size: Int
        var modified: Int
        var crc: UInt32
        var stored: Bool
        var payload: Data
    }

    /// Reads and compresses one file whole with libdeflate. It is stored instead when deflate would not make it
    /// smaller, or, for a content type that is compressed already, not at least 3% smaller.
    /// - Returns: The entry, or `nil` when the file is gone (deleted since it was listed).
    func compressSmall(_ key: String, level: Int32) throws -> SmallEntry? {
        guard let data = try readIfPresent(key), let metadata = try metadata(key) else { return nil }
        let crc = data.withUnsafeBytes { LibDeflate.crc32($0) }
        let room = ContentType.isCompressed(metadata.contentType) ? data.count * 97 / 100 : data.count - 1
        var compressed = Data(count: max(room, 0))
        let produced = try data.withUnsafeBytes { input in
            try compressed.withUnsafeMutableBytes { output in
                try LibDeflate.Compressor(level: level).compress(input, into: output)
            }
        }
        if let produced { compressed.count = produced }
        return SmallEntry(
            key: key, size: data.count, modified: Int(metadata.modificationDate.timeIntervalSince1970),
            crc: crc, stored: produced == nil, payload: produced == nil ? data : compressed)
    }

    func writeSmallEntry(_ entry: SmallEntry, into writer: inout AtomicFile.Writer, threshold: Int) throws
        -> ZipFormat.Record
    {
        let offset = writer.count
        let zip64 = entry.size >= threshold || offset >= threshold
        var zipEntry = ZipFormat.Record(
            name: entry.key, method: entry.stored ? 0 : 8, crc: entry.crc, compressedSize: entry.payload.count,
            size: entry.size,
            offset: offset, modified: entry.modified)
        try writer.write(Data(ZipFormat.localHeader(zipEntry, zip64: zip64)))
        try entry.payload.withUnsafeBytes { try writer.write($0) }
        zipEntry.compressedSize = entry.payload.count
        return zipEntry
    }

    /// Streams one large file into the archive, deciding store or deflate from a sample, and patching the local
    /// header with the CRC and sizes once known. The file is read through the engine's reader (on the POSIX engine,
    /// its descriptor under the shared lock).
    /// - Returns: The entry, or `nil` when the file was gone before any of it was written (deleted since it was
    ///   listed). Gone later (an object store's file deleted between two ranged reads), it fails the export.
    func writeLargeEntry(
        _ key: String, into writer: inout AtomicFile.Writer, options: ExportOptions, progress: (Int) -> Void
    ) throws -> ZipFormat.Record? {
        var started = false
        do {
            return try streamLargeEntry(key, into: &writer, options: options, started: &started, progress: progress)
        } catch let error as StorageError where error.code == .notFound && !started {
            return nil
        }
    }

    private func streamLargeEntry(
        _ key: String, into writer: inout AtomicFile.Writer, options: ExportOptions, started: inout Bool,
        progress: (Int) -> Void
    ) throws -> ZipFormat.Record {
        try engine.withReader(key) { reader in
            let size = reader.size
            let modified = Int(reader.modificationDate.timeIntervalSince1970)
            // Sample the start: data that does not shrink is stored, not deflated. The sample is handed out again
            // first, so the file is read once.
            var sample = [UInt8](repeating: 0, count: 256 << 10)
            var sampled = 0
            while sampled < sample.count {
                let count = try sample.withUnsafeMutableBytes {
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[sampled...]))
                }
                if count == 0 { break }
                sampled += count
            }
            sample.removeSubrange(sampled...)
            let trial = try sample.withUnsafeBytes {
                try Zlib.deflateBlock($0, dictionary: nil, level: 1, isLast: true)
            }
            let store = trial.count > sample.count * 97 / 100
            var replayed = 0
            func next(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                guard replayed < sample.count else { return try reader.read(into: buffer) }
                let count = min(buffer.count, sample.count - replayed)
                sample.withUnsafeBytes {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[replayed..<(replayed + count)]))
                }
                replayed += count
                return count
            }
            let offset = writer.count
            let zip64 = size >= options.zip64Threshold || offset >= options.zip64Threshold
            var entry = ZipFormat.Record(
                name: key, method: store ? 0 : 8, crc: 0, compressedSize: 0, size: size, offset: offset,
                modified: modified)
            let header = ZipFormat.localHeader(entry, zip64: zip64)
            started = true
            try writer.write(Data(header))
            let dataStart = writer.count
            if store {
                var crc: UInt32 = 0
                var buffer = [UInt8](repeating: 0, count: 1 << 20)
                var done = 0
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try next($0) }
                    if count == 0 { break }
                    try buffer.withUnsafeBytes { bytes in
                        let slice = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                        crc = LibDeflate.crc32(slice, continuing: crc)
                        try writer.write(slice)
                    }
                    done += count
                    if options.isCancelled?() == true {
                        throw StorageError(.cancelled, "the export was cancelled", tier: .files, key: key)
                    }
                    progress(done)
                }
                entry.crc = crc
                entry.size = done
            } else {
                let deflater = ParallelDeflater(level: options.level, threads: options.threads)
                let (crc, total) = try deflater.deflate(
                    read: { buffer in try buffer.withUnsafeMutableBytes { try next($0) } },
                    sink: { compressed in try compressed.withUnsafeBytes { try writer.write($0) } },
                    progress: { done in
                        if options.isCancelled?() == true {
                            throw StorageError(.cancelled, "the export was cancelled", tier: .files, key: key)
                        }
                        progress(done)
                    })
                entry.crc = crc
                entry.size = total
            }
            entry.compressedSize = writer.count - dataStart
            try writer.write(ZipFormat.localHeader(entry, zip64: zip64), at: offset)
            return entry
        }
    }

    func writeCentralDirectory(
        _ entries: [ZipFormat.Record], into writer: inout AtomicFile.Writer, threshold: Int
    ) throws {
        try writer.write(Data(ZipFormat.centralDirectory(entries, start: writer.count, threshold: threshold)))
    }
}

func littleEndian<I: FixedWidthInteger>(_ value: I, _ width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: UInt64(truncatingIfNeeded: value) >> (UInt64($0) * 8)) }
}
