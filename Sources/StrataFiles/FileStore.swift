public import Foundation
public import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file store under `<root>/files`, addressed by relative paths, safe to share between threads and
/// processes.
///
/// ```swift
/// let files = try FileStore(paths: paths)
/// try files.write(pdfData, to: "exports/2026/report.pdf")          // atomic replace, durable
/// let report = try files.read("exports/2026/report.pdf")
/// try files.read("recordings/long.wav") { chunk in upload(chunk) }  // streamed, flat memory
/// let archive = try files.exportZip(["exports", "recordings"], to: "/tmp/backup.zip")
/// ```
///
/// Every file has a lock that holds across processes (`<root>/files/.strata-locks/`): readers share it, writers
/// take it alone. Writes replace the file atomically (temporary file, `fsync`, `rename(2)`), so a reader never
/// sees a half-written file and a writer killed at any moment leaves the old file or the new one. Each write
/// records the content's CRC-32 and size in an extended attribute, renamed into place with the content, which
/// ``verify(prefix:)`` checks.
public final class FileStore: Sendable {
    /// The tier folder, `<root>/files`.
    public let directory: String
    /// The store's paths.
    public let paths: StoragePaths
    /// Durability, lock timeout and chunk size.
    public let configuration: FilesConfiguration

    static let integrityAttribute = "user.strata.integrity"
    static let lockFolderName = StoragePaths.reservedPrefix + "locks"

    /// Opens the file tier of a store, creating its folder (0700).
    public init(paths: StoragePaths, configuration: FilesConfiguration = FilesConfiguration()) throws {
        self.paths = paths
        self.configuration = configuration
        directory = try paths.directory(for: .files)
        let locks = directory + "/" + Self.lockFolderName
        do {
            try Sys.mkdir(locks, 0o700)
        } catch  where error.code == EEXIST {
        } catch {
            throw error.storageError("cannot create the lock folder", tier: .files, path: locks)
        }
        AtomicFile.removeStaleTemporaries(in: directory)
        ImportStaging.removeDead(in: directory)
    }

    /// Opens the file tier under a store root folder.
    public convenience init(root: String, configuration: FilesConfiguration = FilesConfiguration()) throws {
        try self.init(paths: StoragePaths(root: root), configuration: configuration)
    }

    // MARK: Paths and locks

    /// The absolute path of a key, refusing anything that could leave the store.
    public func path(for key: String, creatingParents: Bool = false) throws -> String {
        try paths.path(for: key, in: .files, createParents: creatingParents)
    }

    /// The cross-process lock of one file. Lock files live in one folder, named by a hash of the key.
    func lock(for key: String) -> FileLock {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return FileLock(path: directory + "/" + Self.lockFolderName + "/" + String(hash, radix: 16) + ".lock")
    }

    func withLock<T>(_ key: String, _ mode: FileLock.Mode, _ body: () throws -> T) throws -> T {
        do {
            return try lock(for: key).withLock(mode, timeout: configuration.lockTimeout, body)
        } catch let error as StorageError where error.code == .lockTimeout || error.code == .lockUnavailable {
            throw error.attributed(tier: .files, key: key)
        }
    }

    // MARK: Writing

    /// Writes `data` to `key`, replacing any file there atomically.
    /// - Throws: ``StorageError``: `.invalidKey` or `.symbolicLink` for a refused key, `.lockTimeout`, or an
    ///   I/O error (`.noSpace`, ...) — the previous file is then unchanged.
    public func write(_ data: Data, to key: String) throws {
        try write(to: key) { writer in try writer.write(data) }
    }

    /// Writes a file streamed from an open file handle, in chunks (memory stays flat).
    public func write(to key: String, from handle: FileHandle) throws {
        try write(to: key) { writer in
            while let chunk = try handle.read(upToCount: configuration.chunkSize), !chunk.isEmpty {
                try writer.write(chunk)
            }
        }
    }

    /// Writes a file from an async sequence of chunks, replacing any file there atomically when it ends.
    public func write<S: AsyncSequence>(to key: String, chunks: S) async throws where S.Element == Data {
        let path = try path(for: key, creatingParents: true)
        // Collect into a temporary file first (no lock held while awaiting), then move it into place.
        let staging =
            directory + "/" + AtomicFile.temporaryPrefix + "\(getpid())-stream-"
            + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        guard FileManager.default.createFile(atPath: staging, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: staging)
        else { throw StorageError(.io, "cannot create a staging file", tier: .files, key: key, path: staging) }
        defer { try? FileManager.default.removeItem(atPath: staging) }
        do {
            for try await chunk in chunks { try handle.write(contentsOf: chunk) }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        guard let input = FileHandle(forReadingAtPath: staging) else {
            throw StorageError(.io, "cannot reopen the staging file", tier: .files, key: key, path: staging)
        }
        defer { try? input.close() }
        _ = path
        try write(to: key, from: input)
    }

    /// Writes a file with a ``FileWriter`` that `body` feeds; nothing replaces the old file unless `body` returns.
    public func write(to key: String, _ body: (inout FileWriter) throws -> Void) throws {
        let path = try path(for: key, creatingParents: true)
        try withLock(key, .exclusive) {
            do {
                try AtomicFile.write(to: path, permissions: 0o600, durability: configuration.durability) { atomic in
                    var writer = FileWriter(atomic: &atomic)
                    try body(&writer)
                    let record = Self.integrityRecord(crc: writer.crc, size: writer.count)
                    try atomic.setExtendedAttribute(Self.integrityAttribute, record)
                }
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
    }

    static func integrityRecord(crc: UInt32, size: Int) -> [UInt8] {
        Array("v1 crc32=\(String(format: "%08x", crc)) size=\(size)".utf8)
    }

    static func parseIntegrity(_ bytes: [UInt8]) -> (crc: UInt32, size: Int)? {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, parts[0] == "v1", parts[1].hasPrefix("crc32="), parts[2].hasPrefix("size="),
            let crc = UInt32(parts[1].dropFirst(6), radix: 16), let size = Int(parts[2].dropFirst(5))
        else { return nil }
        return (crc, size)
    }

    /// Reads, transforms and replaces a file atomically across processes (the file's lock is held exclusively
    /// throughout).
    /// - Parameter transform: Gets the current content (`nil` when absent) and returns the new one.
    public func update(_ key: String, _ transform: (Data?) throws -> Data) throws {
        let path = try path(for: key, creatingParents: true)
        try withLock(key, .exclusive) {
            let current: Data?
            do {
                current = try AtomicFile.read(path, followGrowth: false)
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
            let new = try transform(current)
            do {
                try AtomicFile.write(to: path, permissions: 0o600, durability: configuration.durability) { atomic in
                    var writer = FileWriter(atomic: &atomic)
                    try writer.write(new)
                    try atomic.setExtendedAttribute(
                        Self.integrityAttribute, Self.integrityRecord(crc: writer.crc, size: writer.count))
                }
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
    }

    /// Appends `data` to a file (creating it), under the file's exclusive lock, keeping its checksum current.
    public func append(_ data: Data, to key: String) throws {
        let path = try path(for: key, creatingParents: true)
        try withLock(key, .exclusive) {
            let fd: Int32
            do throws(Errno) {
                fd = try Sys.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600)
            } catch {
                throw error.storageError("cannot open the file to append", tier: .files, key: key, path: path)
            }
            defer { Sys.close(fd) }
            let previous = (try? Sys.attribute(fd, Self.integrityAttribute)).flatMap { $0 }.flatMap(Self.parseIntegrity)
            let size = Int((try? Sys.fstat(fd))?.st_size ?? 0)
            do throws(Errno) {
                try Sys.writeAll(fd, data, path: path)
                let added = data.withUnsafeBytes { Zlib.crc32($0) }
                if let previous, previous.size == size {
                    let crc = Zlib.crc32Combine(previous.crc, added, secondLength: data.count)
                    try? Sys.setAttribute(
                        fd, Self.integrityAttribute, Self.integrityRecord(crc: crc, size: size + data.count))
                } else if size == 0 {
                    try? Sys.setAttribute(
                        fd, Self.integrityAttribute, Self.integrityRecord(crc: added, size: data.count))
                }
                if configuration.durability == .durable { try Sys.fsync(fd, path: path) }
            } catch {
                throw error.storageError("cannot append to the file", tier: .files, key: key, path: path)
            }
        }
    }

    // MARK: Reading

    /// The whole content of a file.
    /// - Throws: ``StorageError`` `.notFound` when there is no file, `.symbolicLink`, or an I/O error.
    public func read(_ key: String) throws -> Data {
        guard let data = try readIfPresent(key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return data
    }

    /// The content of a file, or `nil` when there is none.
    public func readIfPresent(_ key: String) throws -> Data? {
        let path = try path(for: key)
        return try withLock(key, .shared) {
            do {
                return try AtomicFile.read(path, followGrowth: false)
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
    }

    /// Streams a file to `body` in chunks of ``FilesConfiguration/chunkSize`` under the shared lock (memory
    /// stays flat whatever the size).
    /// - Returns: The number of bytes read.
    @discardableResult
    public func read(_ key: String, chunks body: (Data) throws -> Void) throws -> Int {
        let path = try path(for: key)
        return try withLock(key, .shared) {
            let fd = try open(path, key: key)
            defer { Sys.close(fd) }
            var total = 0
            var buffer = [UInt8](repeating: 0, count: configuration.chunkSize)
            while true {
                let count: Int
                do throws(Errno) {
                    count = try Sys.read(fd, into: &buffer)
                } catch {
                    throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
                }
                if count == 0 { return total }
                try body(Data(buffer[0..<count]))
                total += count
            }
        }
    }

    /// A file's chunks as an async sequence. The shared lock is held while the sequence is iterated.
    public func chunks(of key: String) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task.detached { [self] in
                do {
                    try read(key) { chunk in
                        try Task.checkCancellation()
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func open(_ path: String, key: String) throws -> Int32 {
        do {
            return try Sys.open(path, O_RDONLY | O_NOFOLLOW)
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key, path: path)
        } catch {
            throw error.storageError("cannot open the file", tier: .files, key: key, path: path)
        }
    }

    // MARK: Managing

    /// Whether a file exists under `key`.
    public func exists(_ key: String) throws -> Bool {
        let path = try path(for: key)
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Deletes a file.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        let path = try path(for: key)
        return try withLock(key, .exclusive) {
            do throws(Errno) {
                try Sys.unlink(path)
            } catch  where error.code == ENOENT {
                return false
            } catch {
                throw error.storageError("cannot delete the file", tier: .files, key: key, path: path)
            }
            if configuration.durability == .durable {
                try AtomicFile.syncDirectory((path as NSString).deletingLastPathComponent)
            }
            return true
        }
    }

    /// Moves a file, replacing any file at the destination atomically.
    public func move(_ source: String, to destination: String) throws {
        let from = try path(for: source)
        let to = try path(for: destination, creatingParents: true)
        // Both locks, in a fixed order, so two opposite moves cannot deadlock.
        let locks = [(source, lock(for: source)), (destination, lock(for: destination))].sorted {
            $0.1.path < $1.1.path
        }
        let first = try locks[0].1.acquire(.exclusive, timeout: configuration.lockTimeout)
        defer { first.release() }
        let second =
            locks[0].1.path == locks[1].1.path
            ? nil : try locks[1].1.acquire(.exclusive, timeout: configuration.lockTimeout)
        defer { second?.release() }
        do throws(Errno) {
            try Sys.rename(from, to)
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no file to move", tier: .files, key: source, path: from)
        } catch {
            throw error.storageError("cannot move the file", tier: .files, key: source, path: from)
        }
        if configuration.durability == .durable {
            try AtomicFile.syncDirectory((to as NSString).deletingLastPathComponent)
            try AtomicFile.syncDirectory((from as NSString).deletingLastPathComponent)
        }
    }

    /// Copies a file (streamed), replacing any file at the destination atomically.
    public func copy(_ source: String, to destination: String) throws {
        let from = try path(for: source)
        try withLock(source, .shared) {
            let fd = try open(from, key: source)
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try write(to: destination, from: handle)
        }
    }

    /// Every file key under `prefix` (a folder key, or `""` for all), sorted; recursive unless asked not to be.
    public func list(prefix: String = "", recursive: Bool = true) throws -> [String] {
        let start =
            prefix.isEmpty ? directory : try path(for: prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix)
        var keys: [String] = []
        func walk(_ folder: String, _ relative: String) throws {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in names where !name.hasPrefix(StoragePaths.reservedPrefix) {
                let full = folder + "/" + name
                let key = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: keys.append(key)
                case S_IFDIR: if recursive { try walk(full, key) }
                default: continue  // Links and specials are never listed (nor followed).
                }
            }
        }
        let base = prefix.isEmpty ? "" : (prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix)
        try walk(start, base)
        return keys.sorted()
    }

    /// Size, dates, content type and recorded checksum of a file, or `nil` when there is none.
    public func metadata(_ key: String) throws -> FileMetadata? {
        let path = try path(for: key)
        let fd: Int32
        do { fd = try open(path, key: key) } catch let error as StorageError where error.code == .notFound {
            return nil
        }
        defer { Sys.close(fd) }
        let info: stat
        do { info = try Sys.fstat(fd) } catch {
            throw error.storageError("cannot inspect the file", tier: .files, key: key, path: path)
        }
        var head = [UInt8](repeating: 0, count: 16)
        let count = (try? Sys.read(fd, into: &head)) ?? 0
        head.removeSubrange(count...)
        let recorded = (try? Sys.attribute(fd, Self.integrityAttribute)).flatMap { $0 }.flatMap(Self.parseIntegrity)
        return FileMetadata(
            key: key, size: Int(info.st_size), modificationDate: Self.date(info, modification: true),
            accessDate: Self.date(info, modification: false), contentType: ContentType.of(key: key, head: head),
            checksum: recorded?.size == Int(info.st_size) ? recorded?.crc : nil)
    }

    static func date(_ info: stat, modification: Bool) -> Date {
        #if canImport(Darwin)
            let time = modification ? info.st_mtimespec : info.st_atimespec
        #else
            let time = modification ? info.st_mtim : info.st_atim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// Recomputes the CRC-32 of every file under `prefix` and compares it with what was recorded at write time.
    /// - Returns: The files that do not match (and those with nothing recorded); empty when all is well.
    public func verify(prefix: String = "") throws -> [FileProblem] {
        var problems: [FileProblem] = []
        for key in try list(prefix: prefix) {
            let path = try path(for: key)
            try withLock(key, .shared) {
                let fd = try open(path, key: key)
                defer { Sys.close(fd) }
                guard
                    let recorded = (try? Sys.attribute(fd, Self.integrityAttribute)).flatMap({ $0 }).flatMap(
                        Self.parseIntegrity)
                else {
                    problems.append(FileProblem(key: key, kind: .unrecorded, detail: "no checksum was recorded"))
                    return
                }
                var crc: UInt32 = 0
                var size = 0
                var buffer = [UInt8](repeating: 0, count: 1 << 20)
                while true {
                    let count: Int
                    do throws(Errno) {
                        count = try Sys.read(fd, into: &buffer)
                    } catch {
                        throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
                    }
                    if count == 0 { break }
                    crc = buffer.withUnsafeBytes {
                        Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<count]), continuing: crc)
                    }
                    size += count
                }
                if size != recorded.size {
                    problems.append(
                        FileProblem(
                            key: key, kind: .sizeMismatch, detail: "recorded \(recorded.size) bytes, found \(size)"))
                } else if crc != recorded.crc {
                    problems.append(
                        FileProblem(
                            key: key, kind: .checksumMismatch,
                            detail:
                                "recorded CRC-32 \(String(format: "%08x", recorded.crc)), computed \(String(format: "%08x", crc))"
                        ))
                }
            }
        }
        return problems
    }
}

/// Streams the content of a file being written, computing its CRC-32 on the way.
public struct FileWriter: ~Copyable {
    private let atomic: UnsafeMutablePointer<AtomicFile.Writer>
    /// The CRC-32 of what was written so far.
    public private(set) var crc: UInt32 = 0
    /// How many bytes were written so far.
    public private(set) var count = 0

    init(atomic: inout AtomicFile.Writer) {
        self.atomic = withUnsafeMutablePointer(to: &atomic) { $0 }
    }

    /// Appends `data`.
    public mutating func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Appends the bytes of `buffer`.
    public mutating func write(_ buffer: UnsafeRawBufferPointer) throws {
        try atomic.pointee.write(buffer)
        crc = Zlib.crc32(buffer, continuing: crc)
        count += buffer.count
    }
}
