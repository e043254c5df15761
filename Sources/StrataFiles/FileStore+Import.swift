import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Limits that protect an import from hostile archives.
public struct ImportLimits: Sendable {
    /// The most all entries may expand to, in bytes. The default is 1 GiB.
    public var maximumTotalSize: Int
    /// The highest expansion ratio an entry (of more than 1 MiB) may have. The default is 200 (a zip bomb is
    /// far above; ordinary text is below 20).
    public var maximumRatio: Int
    /// The most entries an archive may have. The default is 100 000.
    public var maximumEntries: Int

    public init(maximumTotalSize: Int = 1 << 30, maximumRatio: Int = 200, maximumEntries: Int = 100_000) {
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
        self.maximumEntries = maximumEntries
    }
}

extension FileStore {
    /// Extracts a zip archive into the store under `prefix`.
    ///
    /// Every entry is checked before anything is stored: names that would leave the destination (`..`, absolute
    /// paths, backslashes, NUL), symbolic links, encrypted or unknown methods, sizes and ratios over the
    /// limits, CRC mismatches and truncations are refused with a typed error. Entries are extracted into a
    /// staging folder first and moved into place only when all are good: a failed import leaves the store
    /// unchanged.
    /// - Returns: The keys stored.
    @discardableResult
    public func importZip(from archive: String, into prefix: String = "", limits: ImportLimits = ImportLimits()) throws
        -> [String]
    {
        let reader = try ZipReader(path: archive, limits: limits)
        defer { reader.close() }
        let entries = try reader.entries()
        var targets: [(ZipReader.Entry, String)] = []
        var total = 0
        for entry in entries where !entry.isDirectory {
            let key = prefix.isEmpty ? entry.name : (prefix.hasSuffix("/") ? prefix : prefix + "/") + entry.name
            do {
                try StoragePaths.validateKey(key)
            } catch {
                throw StorageError(
                    .invalidKey,
                    "the archive entry '\(entry.name)' would land outside the destination: \(error.message)",
                    tier: .files, key: entry.name, path: archive)
            }
            total += entry.size
            guard total <= limits.maximumTotalSize else {
                throw StorageError(
                    .limitExceeded, "the archive expands to more than \(limits.maximumTotalSize) bytes", tier: .files,
                    path: archive, recovery: "Raise ImportLimits.maximumTotalSize if the archive is trusted")
            }
            targets.append((entry, key))
        }
        let staging = try makeStaging()
        defer { try? FileManager.default.removeItem(atPath: staging) }
        var staged: [(String, String)] = []
        for (index, (entry, key)) in targets.enumerated() {
            let file = staging + "/\(index)"
            try AtomicFile.write(to: file, permissions: 0o600, durability: .atomicOnly) { writer in
                let crc = try reader.extract(entry) { chunk in try writer.write(chunk) }
                _ = try writer.setExtendedAttribute(
                    Self.integrityAttribute, Self.integrityRecord(crc: crc, size: entry.size))
            }
            staged.append((file, key))
        }
        return try commit(staged)
    }

    /// Decompresses a gzip file into the store at `key`, with the same checks as ``importZip(from:into:limits:)``.
    public func importGzip(from archive: String, to key: String, limits: ImportLimits = ImportLimits()) throws {
        try StoragePaths.validateKey(key)
        guard let input = FileHandle(forReadingAtPath: archive) else {
            throw StorageError(.notFound, "cannot open the gzip file", tier: .files, path: archive)
        }
        defer { try? input.close() }
        let compressedSize = Int((try? FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int) ?? 0)
        let staging = try makeStaging()
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let file = staging + "/0"
        try AtomicFile.write(to: file, permissions: 0o600, durability: .atomicOnly) { writer in
            let inflater = try Zlib.Inflater(gzip: true)
            var crc: UInt32 = 0
            var produced = 0
            while !inflater.isFinished {
                guard let chunk = try input.read(upToCount: 256 << 10), !chunk.isEmpty else {
                    throw StorageError(.corrupt, "the gzip file is truncated", tier: .files, path: archive)
                }
                _ = try chunk.withUnsafeBytes { bytes in
                    try inflater.feed(bytes) { output in
                        produced += output.count
                        try Self.checkExpansion(produced, compressed: compressedSize, limits: limits, path: archive)
                        crc = Zlib.crc32(output, continuing: crc)
                        try writer.write(output)
                    }
                }
            }
            _ = try writer.setExtendedAttribute(Self.integrityAttribute, Self.integrityRecord(crc: crc, size: produced))
        }
        _ = try commit([(file, key)])
    }

    static func checkExpansion(_ produced: Int, compressed: Int, limits: ImportLimits, path: String) throws {
        if produced > limits.maximumTotalSize {
            throw StorageError(
                .limitExceeded, "the archive expands to more than \(limits.maximumTotalSize) bytes", tier: .files,
                path: path)
        }
        if produced > 1 << 20, produced / max(compressed, 1) > limits.maximumRatio {
            throw StorageError(
                .limitExceeded, "the data expands more than \(limits.maximumRatio) times (a decompression bomb?)",
                tier: .files, path: path)
        }
    }

    func makeStaging() throws -> String {
        let staging =
            directory + "/" + StoragePaths.reservedPrefix + "import-\(getpid())-"
            + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        do {
            try Sys.mkdir(staging, 0o700)
        } catch {
            throw error.storageError("cannot create a staging folder", tier: .files, path: staging)
        }
        return staging
    }

    /// Moves staged files into place, each under its exclusive lock.
    func commit(_ staged: [(String, String)]) throws -> [String] {
        for (file, key) in staged {
            let target = try path(for: key, creatingParents: true)
            try withLock(key, .exclusive) {
                do throws(Errno) {
                    try Sys.rename(file, target)
                } catch {
                    throw error.storageError(
                        "cannot move an imported file into place", tier: .files, key: key, path: target)
                }
            }
        }
        if configuration.durability == .durable {
            for folder in Set(
                staged.map { (try? path(for: $0.1)).map { ($0 as NSString).deletingLastPathComponent } ?? directory })
            {
                try AtomicFile.syncDirectory(folder)
            }
        }
        return staged.map(\.1)
    }
}

/// Reads a zip archive's central directory and entries, refusing anything malformed.
final class ZipReader {
    struct Entry {
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localOffset: Int
        var isDirectory: Bool
    }

    let path: String
    let limits: ImportLimits
    let fd: Int32
    let length: Int

    init(path: String, limits: ImportLimits) throws {
        self.path = path
        self.limits = limits
        do {
            fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
        } catch {
            throw error.storageError("cannot open the archive", tier: .files, path: path)
        }
        length = Int((try? Sys.fstat(fd))?.st_size ?? 0)
    }

    func close() { Sys.close(fd) }

    func corrupt(_ why: String) -> StorageError {
        StorageError(.corrupt, "the zip archive is damaged or truncated: \(why)", tier: .files, path: path)
    }

    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset + count <= length else {
            throw corrupt("a record runs past the end of the file")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw Errno.current.storageError("cannot read the archive", tier: .files, path: path)
            }
            if got == 0 { throw corrupt("the file ended early") }
            done += got
        }
        return buffer
    }

    static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
    static func u64(_ b: [UInt8], _ at: Int) -> Int {
        let value = UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32
        return value > UInt64(Int.max) ? Int.max : Int(value)
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
            // ZIP64: the locator sits just before the end record.
            let locatorAt = length - tail + at - 20
            let locator = try bytes(at: locatorAt, count: 20)
            guard Self.u32(locator, 0) == 0x0706_4B50 else { throw corrupt("a ZIP64 archive without its locator") }
            let record = try bytes(at: Self.u64(locator, 8), count: 56)
            guard Self.u32(record, 0) == 0x0606_4B50 else { throw corrupt("a bad ZIP64 end record") }
            count = Self.u64(record, 32)
            size = Self.u64(record, 40)
            offset = Self.u64(record, 48)
        }
        guard count <= limits.maximumEntries else {
            throw StorageError(
                .limitExceeded, "the archive has \(count) entries; the limit is \(limits.maximumEntries)", tier: .files,
                path: path)
        }
        guard size <= 1 << 30 else { throw corrupt("an implausibly large central directory") }
        let directory = try bytes(at: offset, count: size)
        var entries: [Entry] = []
        var position = 0
        for _ in 0..<count {
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
            let nameStart = position + 46
            guard nameStart + nameLength + extraLength + commentLength <= directory.count else {
                throw corrupt("an entry runs past the directory")
            }
            let nameBytes = Array(directory[nameStart..<(nameStart + nameLength)])
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                throw StorageError(.invalidKey, "an entry name is not valid UTF-8", tier: .files, path: path)
            }
            // ZIP64 extra field: 8-byte values for whichever 32-bit fields are saturated, in order.
            var extra = nameStart + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let tag = Self.u16(directory, extra)
                let dataSize = Self.u16(directory, extra + 2)
                guard extra + 4 + dataSize <= extraEnd else { throw corrupt("a bad extra field") }
                if tag == 1 {
                    var field = extra + 4
                    if uncompressed == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize {
                        uncompressed = Self.u64(directory, field); field += 8
                    }
                    if compressed == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize {
                        compressed = Self.u64(directory, field); field += 8
                    }
                    if local == 0xFFFF_FFFF, field + 8 <= extra + 4 + dataSize { local = Self.u64(directory, field) }
                }
                extra += 4 + dataSize
            }
            let mode = madeBy == 3 ? (external >> 16) & 0o170000 : 0
            if mode == 0o120000 {
                throw StorageError(
                    .invalidKey, "the archive entry '\(name)' is a symbolic link; links are never imported",
                    tier: .files, key: name, path: path)
            }
            guard flags & 1 == 0 else {
                throw StorageError(
                    .invalidArgument, "the archive entry '\(name)' is encrypted", tier: .files, key: name, path: path)
            }
            guard method == 0 || method == 8 else {
                throw StorageError(
                    .invalidArgument,
                    "the archive entry '\(name)' uses compression method \(method); only stored and deflate are read",
                    tier: .files, key: name, path: path)
            }
            if method == 0, compressed != uncompressed { throw corrupt("a stored entry whose sizes differ") }
            if uncompressed > 1 << 20, compressed > 0, uncompressed / compressed > limits.maximumRatio {
                throw StorageError(
                    .limitExceeded,
                    "the archive entry '\(name)' expands \(uncompressed / max(compressed, 1)) times (a decompression bomb?)",
                    tier: .files, key: name, path: path)
            }
            entries.append(
                Entry(
                    name: name, method: method, flags: flags, crc: crc, compressedSize: compressed, size: uncompressed,
                    localOffset: local, isDirectory: name.hasSuffix("/") && uncompressed == 0))
            position = extraEnd + commentLength
        }
        return entries
    }

    /// Streams one entry's data to `sink`, checking its size and CRC against the directory.
    /// - Returns: The CRC-32.
    func extract(_ entry: Entry, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> UInt32 {
        try withoutActuallyEscaping(sink) { sink in try extract(entry, escapingSink: sink) }
    }

    private func extract(_ entry: Entry, escapingSink sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws
        -> UInt32
    {
        let header = try bytes(at: entry.localOffset, count: 30)
        guard Self.u32(header, 0) == 0x0403_4B50 else { throw corrupt("entry '\(entry.name)' has no local header") }
        let dataStart = entry.localOffset + 30 + Self.u16(header, 26) + Self.u16(header, 28)
        guard dataStart + entry.compressedSize <= length else {
            throw corrupt("entry '\(entry.name)' runs past the end")
        }
        var crc: UInt32 = 0
        var produced = 0
        var consumed = 0
        let inflater = entry.method == 8 ? try Zlib.Inflater(gzip: false) : nil
        while consumed < entry.compressedSize {
            let chunk = try bytes(at: dataStart + consumed, count: min(256 << 10, entry.compressedSize - consumed))
            consumed += chunk.count
            try chunk.withUnsafeBytes { input in
                let emit: (UnsafeRawBufferPointer) throws -> Void = { output in
                    produced += output.count
                    guard produced <= entry.size else {
                        throw StorageError(
                            .limitExceeded,
                            "entry '\(entry.name)' expands past its declared size (a decompression bomb?)",
                            tier: .files, key: entry.name, path: self.path)
                    }
                    crc = Zlib.crc32(output, continuing: crc)
                    try sink(output)
                }
                if let inflater {
                    do {
                        try inflater.feed(input, emit)
                    } catch let error as StorageError where error.code == .corrupt {
                        throw corrupt("entry '\(entry.name)': \(error.message)")
                    }
                } else {
                    try emit(input)
                }
            }
        }
        if let inflater, !inflater.isFinished {
            throw corrupt("entry '\(entry.name)' ends before its deflate stream does")
        }
        guard produced == entry.size else {
            throw corrupt("entry '\(entry.name)' has \(produced) bytes, not the \(entry.size) declared")
        }
        guard crc == entry.crc else {
            throw corrupt(
                "entry '\(entry.name)' fails its CRC check (\(String(format: "%08x", crc)) instead of \(String(format: "%08x", entry.crc)))"
            )
        }
        return crc
    }
}
