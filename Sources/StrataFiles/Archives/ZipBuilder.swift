public import Foundation
import StrataCore
import StrataSystem
import Synchronization

/// Builds a zip archive entry by entry, in memory or straight into a file handle, in one pass (nothing is written
/// twice, so a pipe or a socket will do).
///
/// ```swift
/// let builder = ZipBuilder()
/// try builder.add("notes/show.txt", data: Data("Episode 12".utf8))
/// try builder.add("art/cover.jpg", data: jpeg, method: .stored)  // compressed already
/// let input = try FileHandle(forReadingFrom: recording)
/// try builder.add("audio/ep12.wav") { buffer in                   // streamed, flat memory
///     (try input.read(upToCount: buffer.count) ?? Data()).copyBytes(to: buffer)
/// }
/// let archive = try builder.finish()
/// ```
///
/// Names are UTF-8 and must be relative paths that an import accepts (no `..`, no absolute path, no backslash, no
/// NUL, no empty component), each used once; modification times are kept to the second. ZIP64 is used past 4 GiB
/// or 65,535 entries. The result passes `unzip -t` and Python's `zipfile`, and ``ZipArchive`` and
/// ``FileStore/importZip(from:into:limits:options:)`` read it. A builder may be shared between threads; its entries
/// are written one at a time.
public final class ZipBuilder: Sendable {
    /// Where the archive goes.
    enum Output: Sendable {
        case memory
        case descriptor(FileDescriptor)
    }

    /// What has been written so far.
    struct Progress {
        /// The archive's bytes, when it is built in memory.
        var data = Data()
        /// Bytes written, which is the next entry's offset.
        var count = 0
        var records: [ZipFormat.Record] = []
        var names: Set<ExactString> = []
        var isFinished = false
    }

    /// What errors name as the archive's path.
    public let path: String
    let output: Output
    let level: Int32
    let threads: Int
    let progress = Mutex(Progress())

    /// A builder of an archive in memory, returned by ``finish()``.
    /// - Parameter level: The deflate level, 0–9. The default is 6, as `zip` uses.
    public init(level: Int32 = 6) {
        path = "in-memory archive"
        output = .memory
        self.level = level
        threads = 1
    }

    /// A builder that writes the archive to `handle` from its current position, sequentially. The handle stays the
    /// caller's: it is neither synchronized nor closed. Offsets in the archive count from that position, so start
    /// with an empty file (or a pipe).
    /// - Parameters:
    ///   - handle: A file (or pipe) opened for writing.
    ///   - path: What errors name as the archive's path. The default is `/dev/fd/N`.
    ///   - level: The deflate level, 0–9. The default is 6.
    ///   - threads: Threads compressing a streamed entry at once. The default is every core.
    public init(
        writingTo handle: FileHandle, path: String? = nil, level: Int32 = 6,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        let fd = FileDescriptor(rawValue: handle.fileDescriptor)
        self.path = path ?? "/dev/fd/\(fd.rawValue)"
        output = .descriptor(fd)
        self.level = level
        self.threads = max(threads, 1)
    }

    /// Adds a file entry with `data` as its content.
    /// - Parameters:
    ///   - name: Its path in the archive (`docs/report.pdf`).
    ///   - data: Its content.
    ///   - method: Deflated (the default) or stored, for data that is compressed already.
    ///   - modificationDate: Its modification time. The default is now.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidKey` for a refused name, `.invalidArgument` for a name
    ///   used twice or a builder already finished, or an I/O error from the handle.
    public func add(
        _ name: String, data: Data, method: ZipEntry.Method = .deflated, modificationDate: Date = Date()
    ) throws {
        var payload = data
        if method == .deflated {
            let compressor = try LibDeflate.Compressor(level: level)
            var compressed = Data(count: compressor.bound(data.count) + 16)
            let produced = data.withUnsafeBytes { input in
                compressed.withUnsafeMutableBytes { compressor.compress(input, into: $0) }
            }
            compressed.count = produced ?? 0
            payload = compressed
        }
        let crc = data.withUnsafeBytes { LibDeflate.crc32($0) }
        try progress.withLock { progress in
            var record = try begin(
                name, method: method, modificationDate: modificationDate, isFolder: false, progress: &progress)
            record.crc = crc
            record.size = data.count
            record.compressedSize = payload.count
            let zip64 = record.size >= 0xFFFF_FFFF || record.compressedSize >= 0xFFFF_FFFF
            try emit(ZipFormat.localHeader(record, zip64: zip64), into: &progress)
            try payload.withUnsafeBytes { try emit($0, into: &progress) }
            progress.records.append(record)
        }
    }

    /// Adds a file entry whose content `read` produces: it fills the buffer it is given and returns how many bytes
    /// it put there, 0 at the end. The entry is written as it is read (its CRC-32 and sizes follow its data), so
    /// memory stays flat whatever its size.
    /// - Parameters:
    ///   - name: Its path in the archive.
    ///   - method: Deflated (the default) or stored.
    ///   - modificationDate: Its modification time. The default is now.
    ///   - read: Fills a buffer, returning the count (0 at the end).
    /// - Throws: What ``add(_:data:method:modificationDate:)`` throws, or what `read` throws (the archive is then
    ///   unusable: a half-written entry cannot be taken back).
    public func add(
        _ name: String, method: ZipEntry.Method = .deflated, modificationDate: Date = Date(),
        reading read: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws {
        try progress.withLock { progress in
            var record = try begin(
                name, method: method, modificationDate: modificationDate, isFolder: false, progress: &progress)
            record.isDeferred = true
            // From here a failure leaves a partial entry: no later call may pretend the archive is whole.
            progress.isFinished = true
            try emit(ZipFormat.localHeader(record, zip64: false), into: &progress)
            let dataStart = progress.count
            if method == .deflated {
                let deflater = ParallelDeflater(level: level, threads: threads)
                (record.crc, record.size) = try deflater.deflate(
                    // A count past the buffer is cut to it (it cannot be true).
                    read: { buffer in try buffer.withUnsafeMutableBytes { min(try read($0), $0.count) } },
                    sink: { compressed in try compressed.withUnsafeBytes { try emit($0, into: &progress) } },
                    progress: { _ in })
            } else {
                var buffer = [UInt8](repeating: 0, count: 256 << 10)
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try read($0) }
                    guard count > 0 else { break }
                    try buffer.withUnsafeBytes { bytes in
                        let chunk = UnsafeRawBufferPointer(rebasing: bytes[0..<min(count, bytes.count)])
                        record.crc = LibDeflate.crc32(chunk, continuing: record.crc)
                        record.size += chunk.count
                        try emit(chunk, into: &progress)
                    }
                }
            }
            record.compressedSize = progress.count - dataStart
            try emit(ZipFormat.dataDescriptor(record), into: &progress)
            progress.records.append(record)
            progress.isFinished = false
        }
    }

    /// Adds a folder entry (`name`, with or without its trailing `/`): what keeps an empty folder in the archive.
    /// - Throws: What ``add(_:data:method:modificationDate:)`` throws.
    public func addDirectory(_ name: String, modificationDate: Date = Date()) throws {
        let folder = name.hasSuffix("/") ? name : name + "/"
        try progress.withLock { progress in
            var record = try begin(
                folder, method: .stored, modificationDate: modificationDate, isFolder: true, progress: &progress)
            record.mode = 0o040755
            try emit(ZipFormat.localHeader(record, zip64: false), into: &progress)
            progress.records.append(record)
        }
    }

    /// Writes the central directory that ends the archive. No entry can be added after it.
    /// - Returns: The archive, when it is built in memory; empty when it was written to a handle.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` when the builder is finished already, or an I/O
    ///   error from the handle.
    @discardableResult
    public func finish() throws -> Data {
        try progress.withLock { progress in
            try checkOpen(progress)
            try emit(ZipFormat.centralDirectory(progress.records, start: progress.count), into: &progress)
            progress.isFinished = true
            return progress.data
        }
    }
}
