import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a zip archive's central directory and entries, refusing anything malformed: the one parser behind
/// ``FileStore/importZip(from:into:limits:options:)`` and ``ZipArchive``.
///
/// The archive is a file read by position (`pread`, so several threads may extract at once) or bytes in memory.
/// Every size and offset comes from the archive, so an attacker chooses it: each one is read as an unsigned
/// 64-bit value, refused when it cannot be a position in this file, and every sum of them is checked
/// (``checkedSum(_:_:_:)``), so no value can trap the process or wrap around to a plausible one.
final class ZipReader: Sendable {
    struct Entry: Sendable {
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localOffset: Int
        var isDirectory: Bool
        /// Seconds since 1970: the extended timestamp field's when there is one, else the MS-DOS date and time.
        var modified: Int
    }

    /// Where the archive's bytes are.
    enum Source: Sendable {
        /// A file, closed by ``close()`` when `owned`.
        case file(FileDescriptor, owned: Bool)
        case memory(Data)
    }

    /// The archive's path, or the name given to an archive in memory: what errors name.
    let path: String
    let limits: ImportLimits
    let source: Source
    let length: Int

    /// Opens the archive at `path` (never following a link).
    convenience init(path: String, limits: ImportLimits) throws {
        let fd: FileDescriptor
        do {
            fd = try Sys.open(path, .readOnly, .noFollow)
        } catch {
            throw error.storageError("cannot open the archive", tier: .files, path: path)
        }
        try self.init(descriptor: fd, owned: true, path: path, limits: limits)
    }

    /// Reads the open file `fd`; when `owned`, ``close()`` closes it (and so does a failure here).
    init(descriptor fd: FileDescriptor, owned: Bool, path: String, limits: ImportLimits) throws {
        let info: stat
        do {
            info = try Sys.fstat(fd)
        } catch {
            if owned { Sys.close(fd) }
            throw error.storageError("cannot inspect the archive", tier: .files, path: path)
        }
        self.path = path
        self.limits = limits
        source = .file(fd, owned: owned)
        length = Int(info.st_size)
    }

    /// Reads `data`; `name` stands for the path in errors.
    init(data: Data, name: String, limits: ImportLimits) {
        path = name
        self.limits = limits
        source = .memory(data)
        length = data.count
    }

    /// Closes the file, if the reader opened it.
    func close() {
        if case .file(let fd, owned: true) = source { Sys.close(fd) }
    }

    /// The error for a malformed archive; `entry` names the entry (in the error's `key`) when there is one.
    func corrupt(_ why: String, entry: String? = nil) -> StorageError {
        StorageError(
            .corrupt, "the zip archive is damaged or truncated: \(why)", tier: .files, key: entry, path: path,
            recovery: "Ask for a new copy of the archive (an import of a damaged one stores nothing)")
    }

    /// `a + b` for sizes and offsets read from the archive, refused as `.corrupt` when it overflows.
    func checkedSum(_ a: Int, _ b: Int, _ what: String, entry: String? = nil) throws -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw corrupt("\(what) is larger than any file can be", entry: entry) }
        return sum
    }

    func bytes(at offset: Int, count: Int, entry: String? = nil) throws -> [UInt8] {
        // Written so that no sum can overflow: `offset <= length - count` with both in 0...length.
        guard offset >= 0, count >= 0, count <= length, offset <= length - count else {
            throw corrupt("a record runs past the end of the file", entry: entry)
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let fd: FileDescriptor
        switch source {
        case .memory(let data):
            let start = data.startIndex + offset
            buffer.withUnsafeMutableBytes { _ = data.copyBytes(to: $0, from: start..<(start + count)) }
            return buffer
        case .file(let descriptor, _):
            fd = descriptor
        }
        var done = 0
        while done < count {
            let result = buffer.withUnsafeMutableBytes { bytes -> Result<Int, Errno> in
                do throws(Errno) {
                    return .success(
                        try Sys.pread(
                            fd, UnsafeMutableRawBufferPointer(rebasing: bytes[done...]), at: Int64(offset + done)))
                } catch {
                    return .failure(error)
                }
            }
            let got: Int
            do throws(Errno) {
                got = try result.get()
            } catch {
                throw error.storageError("cannot read the archive", tier: .files, key: entry, path: path)
            }
            if got == 0 { throw corrupt("the file ended early", entry: entry) }
            done += got
        }
        return buffer
    }

    static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }

    /// An 8-byte field, refused when it exceeds `Int.max` (no file is that large, so it cannot be an honest size
    /// or offset).
    func u64(_ b: [UInt8], _ at: Int, _ what: String, entry: String? = nil) throws -> Int {
        let value = UInt64(Self.u32(b, at)) | UInt64(Self.u32(b, at + 4)) << 32
        guard let exact = Int(exactly: value) else {
            throw corrupt("a ZIP64 \(what) of \(value) is larger than any file can be", entry: entry)
        }
        return exact
    }

    func entries() throws -> [Entry] {
        // The end record is in the last 64 KiB + 22 bytes (a comment can precede nothing after it).
        let tail = min(length, 65_557)
        guard tail >= 22 else { throw corrupt("too short to be a zip archive") }
        let end = try bytes(at: length - tail, count: tail)
        guard
            let at = stride(from: end.count - 22, through: 0, by: -1).first(where: { Self.u32(end, $0) == 0x0605_4B50 })
        else {
            throw corrupt("no end of central directory record")
        }
        var count = Self.u16(end, at + 10)
        var size = Self.u32(end, at + 12)
        var offset = Self.u32(end, at + 16)
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // ZIP64: the locator sits just before the end record (`bytes` refuses a negative position).
            let locator = try bytes(at: length - tail + at - 20, count: 20)
            guard Self.u32(locator, 0) == 0x0706_4B50 else { throw corrupt("a ZIP64 archive without its locator") }
            let record = try bytes(at: try u64(locator, 8, "end record offset"), count: 56)
            guard Self.u32(record, 0) == 0x0606_4B50 else { throw corrupt("a bad ZIP64 end record") }
            count = try u64(record, 32, "entry count")
            size = try u64(record, 40, "central directory size")
            offset = try u64(record, 48, "central directory offset")
        }
        guard count <= limits.maximumEntries else {
            throw StorageError(
                .limitExceeded, "the archive has \(count) entries; the limit is \(limits.maximumEntries)", tier: .files,
                path: path, recovery: "Raise ImportLimits.maximumEntries if the archive is trusted")
        }
        // Each central entry takes at least 46 bytes: a count the directory cannot hold is a lie.
        guard size <= 1 << 30, count <= size / 46 else {
            throw corrupt("a central directory of \(size) bytes cannot hold \(count) entries")
        }
        let directory = try bytes(at: offset, count: size)
        var entries: [Entry] = []
        var position = 0
        for _ in 0..<count {
            let (entry, next) = try centralEntry(in: directory, at: position)
            entries.append(entry)
            position = next
        }
        return entries
    }

    /// Parses the central directory entry at `position` (all positions are within the 1 GiB directory, so their
    /// sums cannot overflow; the values read from it are checked before use).
    /// - Returns: The entry and the position of the next one.
    private func centralEntry(in directory: [UInt8], at position: Int) throws -> (Entry, Int) {
        guard position + 46 <= directory.count, Self.u32(directory, position) == 0x0201_4B50 else {
            throw corrupt("a bad central directory entry")
        }
        let flags = UInt16(Self.u16(directory, position + 8))
        let method = UInt16(Self.u16(directory, position + 10))
        let crc = UInt32(Self.u32(directory, position + 16))
        var compressed = Self.u32(directory, position + 20)
        var uncompressed = Self.u32(directory, position + 24)
        let nameLength = Self.u16(directory, position + 28)
        let extraLength = Self.u16(directory, position + 30)
        let commentLength = Self.u16(directory, position + 32)
        let madeBy = Self.u16(directory, position + 4) >> 8
        let external = Self.u32(directory, position + 38)
        var local = Self.u32(directory, position + 42)
        var modified = Self.dosSeconds(
            time: Self.u16(directory, position + 12), date: Self.u16(directory, position + 14))
        let nameStart = position + 46
        guard nameStart + nameLength + extraLength + commentLength <= directory.count else {
            throw corrupt("an entry runs past the directory")
        }
        let nameBytes = Array(directory[nameStart..<(nameStart + nameLength)])
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            throw StorageError(
                .invalidKey, "an entry name is not valid UTF-8", tier: .files,
                key: String(decoding: nameBytes, as: UTF8.self),
                path: path)
        }
        // ZIP64 extra field: 8-byte values for whichever 32-bit fields are saturated, in order.
        var extra = nameStart + nameLength
        let extraEnd = extra + extraLength
        while extra + 4 <= extraEnd {
            let tag = Self.u16(directory, extra)
            let dataSize = Self.u16(directory, extra + 2)
            guard extra + 4 + dataSize <= extraEnd else { throw corrupt("a bad extra field", entry: name) }
            if tag == 1 {
                var field = extra + 4
                if uncompressed == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize {
                    uncompressed = try u64(directory, field, "size", entry: name)
                    field += 8
                }
                if compressed == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize {
                    compressed = try u64(directory, field, "compressed size", entry: name)
                    field += 8
                }
                if local == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize {
                    local = try u64(directory, field, "header offset", entry: name)
                }
            } else if tag == 0x5455, dataSize >= 5, directory[extra + 4] & 1 != 0 {
                // The extended timestamp: its first value is the modification time, in signed seconds since 1970.
                modified = Int(Int32(bitPattern: UInt32(Self.u32(directory, extra + 5))))
            }
            extra += 4 + dataSize
        }
        let mode = madeBy == 3 ? (external >> 16) & 0o170000 : 0
        if mode == 0o120000 {
            throw StorageError(
                .invalidKey, "an archive entry is a symbolic link; links are never read nor imported", tier: .files,
                key: name, path: path)
        }
        guard flags & 1 == 0 else {
            throw StorageError(.invalidArgument, "an archive entry is encrypted", tier: .files, key: name, path: path)
        }
        guard method == 0 || method == 8 else {
            throw StorageError(
                .invalidArgument,
                "an archive entry uses compression method \(method); only stored and deflate are read",
                tier: .files, key: name, path: path)
        }
        try checkSizes(name: name, method: method, compressed: compressed, uncompressed: uncompressed, local: local)
        let entry = Entry(
            name: name, method: method, flags: flags, crc: crc, compressedSize: compressed, size: uncompressed,
            localOffset: local, isDirectory: name.unicodeScalars.last == "/" && uncompressed == 0, modified: modified)
        return (entry, extraEnd + commentLength)
    }

    /// An MS-DOS date and time (local time, 2-second steps, from 1980) in seconds since 1970; a field out of range is
    /// clamped rather than refused (it cannot hurt anyone), and a zero date is 1980-01-01.
    static func dosSeconds(time: Int, date: Int) -> Int {
        var parts = tm()
        parts.tm_year = Int32(date >> 9) + 80
        parts.tm_mon = Int32(max((date >> 5) & 0xF, 1) - 1)
        parts.tm_mday = Int32(max(date & 0x1F, 1))
        parts.tm_hour = Int32(min(time >> 11, 23))
        parts.tm_min = Int32(min((time >> 5) & 0x3F, 59))
        parts.tm_sec = Int32(min((time & 0x1F) * 2, 59))
        parts.tm_isdst = -1
        return Int(mktime(&parts))
    }

    /// Refuses sizes no honest archive of this length can declare, before any data is read.
    private func checkSizes(name: String, method: UInt16, compressed: Int, uncompressed: Int, local: Int) throws {
        if method == 0, compressed != uncompressed { throw corrupt("a stored entry whose sizes differ", entry: name) }
        // Its data lies inside the file (the local header adds to it; `extract` checks the exact end).
        guard compressed <= length, local <= length - compressed else {
            throw corrupt("an entry's data would lie past the end of the file", entry: name)
        }
        // Deflate needs at least one byte for any output, so a 0-byte stream claiming data is a lie (and would
        // otherwise slip past the ratio check).
        if uncompressed > 0, compressed == 0 {
            throw corrupt("an entry claims \(uncompressed) bytes from no compressed data", entry: name)
        }
        guard uncompressed <= limits.maximumTotalSize else {
            throw StorageError(
                .limitExceeded,
                "an archive entry declares \(uncompressed) bytes; the limit is \(limits.maximumTotalSize)",
                tier: .files, key: name, path: path,
                recovery: "Raise ImportLimits.maximumTotalSize if the archive is trusted")
        }
        if uncompressed > 1 << 20, uncompressed / max(compressed, 1) > limits.maximumRatio {
            throw StorageError(
                .limitExceeded,
                "an archive entry expands \(uncompressed / max(compressed, 1)) times (a decompression bomb?)",
                tier: .files, key: name, path: path)
        }
    }

    /// Streams one entry's data to `sink`, checking its size and CRC against the directory.
    /// - Returns: The CRC-32.
    func extract(_ entry: Entry, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> UInt32 {
        try withoutActuallyEscaping(sink) { sink in try extract(entry, escapingSink: sink) }
    }

    private func extract(_ entry: Entry, escapingSink sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws
        -> UInt32
    {
        let name = entry.name
        let header = try bytes(at: entry.localOffset, count: 30, entry: name)
        guard Self.u32(header, 0) == 0x0403_4B50 else { throw corrupt("an entry has no local header", entry: name) }
        let headerEnd = try checkedSum(
            entry.localOffset, 30 + Self.u16(header, 26) + Self.u16(header, 28), "a local header's end", entry: name)
        let dataEnd = try checkedSum(headerEnd, entry.compressedSize, "an entry's end", entry: name)
        guard dataEnd <= length else { throw corrupt("an entry runs past the end of the file", entry: name) }
        var crc: UInt32 = 0
        var produced = 0
        var consumed = 0
        let inflater = entry.method == 8 ? try Zlib.Inflater(gzip: false) : nil
        while consumed < entry.compressedSize {
            let chunk = try bytes(
                at: headerEnd + consumed, count: min(256 << 10, entry.compressedSize - consumed), entry: name)
            consumed += chunk.count
            try chunk.withUnsafeBytes { input in
                let emit: (UnsafeRawBufferPointer) throws -> Void = { output in
                    produced += output.count
                    guard produced <= entry.size else {
                        throw StorageError(
                            .limitExceeded, "an archive entry expands past its declared size (a decompression bomb?)",
                            tier: .files, key: name, path: self.path)
                    }
                    crc = LibDeflate.crc32(output, continuing: crc)
                    try sink(output)
                }
                if let inflater {
                    do {
                        try inflater.feed(input, emit)
                    } catch let error as StorageError where error.code == .corrupt {
                        throw corrupt(error.message, entry: name)
                    }
                } else {
                    try emit(input)
                }
            }
        }
        if let inflater, !inflater.isFinished {
            throw corrupt("an entry ends before its deflate stream does", entry: name)
        }
        guard produced == entry.size else {
            throw corrupt("an entry has \(produced) bytes, not the \(entry.size) declared", entry: name)
        }
        guard crc == entry.crc else {
            throw corrupt(
                "an entry fails its CRC check (\(String(format: "%08x", crc)) instead of \(String(format: "%08x", entry.crc)))",
                entry: name)
        }
        return crc
    }
}
