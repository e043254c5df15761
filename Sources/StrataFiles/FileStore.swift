public import Foundation
public import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file store under `<root>/files`, addressed by relative paths, safe to share between threads and processes.
///
/// ```swift
/// let files = try FileStore(paths: paths)
/// try files.write(pdfData, to: "exports/2026/report.pdf")          // atomic replace, durable
/// let report = try files.read("exports/2026/report.pdf")
/// try files.read("recordings/long.wav") { chunk in upload(chunk) }  // streamed, flat memory
/// let archive = try files.exportZip(["exports", "recordings"], to: "/tmp/backup.zip")
/// ```
///
/// Every file has a lock that holds across processes (`<root>/files/.strata-locks/`): readers share it, writers take it
/// alone. A lock file is removed by its last exclusive holder (see ``/StrataCore/FileLock``), so the lock folder holds
/// only the locks in use. Every operation opens the key's folder from the root down by descriptor, never through a
/// symbolic link, and works relative to it: a neighbour who swaps a folder for a link cannot redirect a read or a
/// write. Writes replace the file atomically (temporary file, `fsync`, `rename(2)`), so a reader never sees a
/// half-written file and a writer killed at any moment leaves the old file or the new one. Each write records the
/// content's CRC-32 and size in an extended attribute, renamed into place with the content, which ``verify(prefix:)``
/// checks.
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
        let tier = try tierFolder()
        let locks = try lockFolder(in: tier)
        AtomicFile.removeStaleTemporaries(in: tier)
        ImportStaging.removeDead(in: tier, locks: locks)
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

    /// The tier folder, opened from the root.
    func tierFolder() throws -> DirectoryHandle {
        guard let folder = try paths.openDirectory(for: .files) else {
            throw StorageError(.notFound, "the files folder does not exist", tier: .files, path: directory)
        }
        return folder
    }

    /// The lock folder (`.strata-locks`), created on first use; a link in its place is refused.
    func lockFolder(in tier: DirectoryHandle) throws -> DirectoryHandle {
        do {
            return try tier.openDirectory(Self.lockFolderName, create: true, permissions: paths.directoryPermissions)!
        } catch {
            throw error.attributed(tier: .files, key: nil)
        }
    }

    /// The folder that holds `key` and the key's last component, or `nil` when a folder on the way is missing
    /// and `create` is `false`.
    func parent(of key: String, create: Bool = false) throws -> (folder: DirectoryHandle, name: String)? {
        try paths.openParent(of: key, in: .files, createParents: create)
    }

    /// The name of a key's lock file: a hash of the key.
    static func lockName(for key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16) + ".lock"
    }

    /// The cross-process lock of one file. Lock files live in one folder, named by a hash of the key, and are
    /// removed by their last exclusive holder.
    func lock(for key: String) throws -> FileLock {
        FileLock(
            in: try lockFolder(in: tierFolder()), name: Self.lockName(for: key), reclaimsFile: true,
            permissions: mode_t(paths.filePermissions))
    }

    func withLock<T>(_ key: String, _ mode: FileLock.Mode, _ body: () throws -> T) throws -> T {
        try withLocks([(key, mode)], body)
    }

    /// Runs `body` holding the locks of several keys. Cross-process rule: locks are always taken in the order
    /// of their lock file names, so two operations on the same keys in opposite roles (a copy a→b beside a copy
    /// b→a) cannot deadlock; two keys that share a lock file take it once, exclusively if either asks for that.
    func withLocks<T>(_ requests: [(key: String, mode: FileLock.Mode)], _ body: () throws -> T) throws -> T {
        var byName: [String: (key: String, mode: FileLock.Mode)] = [:]
        for request in requests {
            let name = Self.lockName(for: request.key)
            if let existing = byName[name], existing.mode == .exclusive { continue }
            byName[name] = request
        }
        let locks = try lockFolder(in: tierFolder())
        var held: [HeldLock] = []
        defer { for lock in held.reversed() { lock.release() } }
        for name in byName.keys.sorted() {
            let (key, mode) = byName[name]!
            let lock = FileLock(
                in: locks, name: name, reclaimsFile: true, permissions: mode_t(paths.filePermissions))
            do {
                held.append(try lock.acquire(mode, timeout: configuration.lockTimeout))
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
        return try body()
    }

    // MARK: Writing

    /// Writes `data` to `key`, replacing any file there atomically.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidKey` or `.symbolicLink` for a refused key, `.lockTimeout`, or
    ///   an I/O error (`.noSpace`, ...) — the previous file is then unchanged.
    public func write(_ data: Data, to key: String) throws {
        try write(to: key) { writer in try writer.write(data) }
    }

    /// Writes a file streamed from an open file handle, from its current offset to its end, through one reused
    /// buffer of ``FilesConfiguration/chunkSize`` (memory stays flat).
    public func write(to key: String, from handle: FileHandle) throws {
        try write(to: key) { writer in
            try writer.write(contentsOf: handle.fileDescriptor, chunkSize: configuration.chunkSize)
        }
    }

    /// Writes a file from an async sequence of chunks, replacing any file there atomically when it ends.
    public func write<S: AsyncSequence>(to key: String, chunks: S) async throws where S.Element == Data {
        _ = try parent(of: key, create: true)
        // Collect into a temporary file of the tier folder first (no lock held while awaiting), then copy it
        // into place under the lock.
        let tier = try tierFolder()
        let staging =
            AtomicFile.temporaryPrefix + "\(getpid())-stream-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd: Int32
        do {
            fd = try tier.openFile(staging, O_RDWR | O_CREAT | O_EXCL)
        } catch {
            throw error.storageError(
                "cannot create a staging file", tier: .files, key: key, path: tier.path(of: staging))
        }
        defer {
            Sys.close(fd)
            try? tier.unlink(staging)
        }
        do {
            for try await chunk in chunks { try Sys.writeAll(fd, chunk, path: tier.path(of: staging)) }
        } catch let error as Errno {
            throw error.storageError(
                "cannot write the staging file", tier: .files, key: key, path: tier.path(of: staging))
        }
        var buffer = [UInt8](repeating: 0, count: configuration.chunkSize)
        var offset: Int64 = 0
        try write(to: key) { writer in
            while true {
                let count = try buffer.withUnsafeMutableBytes { bytes throws(StorageError) in
                    do throws(Errno) { return try Sys.pread(fd, bytes, at: offset) } catch {
                        throw error.storageError("cannot read the staging file", tier: .files, key: key)
                    }
                }
                if count == 0 { return }
                try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                offset += Int64(count)
            }
        }
    }

    /// Writes a file with a ``FileWriter`` that `body` feeds; nothing replaces the old file unless `body` returns.
    public func write(to key: String, _ body: (inout FileWriter) throws -> Void) throws {
        let (folder, name) = try parent(of: key, create: true)!
        try withLock(key, .exclusive) { try writeLocked(in: folder, name: name, key: key, body) }
    }

    /// Replaces the file `name` of `folder` (the key's folder) with what `body` writes, recording its checksum.
    /// Call with the key's exclusive lock held.
    func writeLocked(in folder: DirectoryHandle, name: String, key: String, _ body: (inout FileWriter) throws -> Void)
        throws
    {
        do {
            try AtomicFile.write(
                in: folder, name: name, permissions: paths.filePermissions, durability: configuration.durability
            ) { writer in
                var atomic = writer
                let (crc, size) = try withoutActuallyEscaping({ (bytes: UnsafeRawBufferPointer) in
                    try atomic.write(bytes)
                }) { sink in
                    var writer = FileWriter(sink: sink)
                    try body(&writer)
                    return (writer.crc, writer.count)
                }
                try atomic.setExtendedAttribute(Self.integrityAttribute, Self.integrityRecord(crc: crc, size: size))
            }
        } catch let error as StorageError {
            throw error.attributed(tier: .files, key: key)
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
    /// - Parameters:
    ///   - key: The file's key.
    ///   - transform: Gets the current content (`nil` when absent) and returns the new one.
    public func update(_ key: String, _ transform: (Data?) throws -> Data) throws {
        let (folder, name) = try parent(of: key, create: true)!
        try withLock(key, .exclusive) {
            let current: Data?
            do {
                current = try AtomicFile.read(in: folder, name: name, followGrowth: false)
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
            let new = try transform(current)
            try writeLocked(in: folder, name: name, key: key) { writer in try writer.write(new) }
        }
    }

    /// Appends `data` to a file (creating it), under the file's exclusive lock, keeping its checksum current.
    public func append(_ data: Data, to key: String) throws {
        let (folder, name) = try parent(of: key, create: true)!
        let path = folder.path(of: name)
        try withLock(key, .exclusive) {
            let fd: Int32
            do throws(Errno) {
                fd = try folder.openFile(
                    name, O_WRONLY | O_CREAT | O_APPEND, permissions: mode_t(paths.filePermissions))
            } catch {
                throw error.storageError("cannot open the file to append", tier: .files, key: key, path: path)
            }
            defer { Sys.close(fd) }
            let previous = (try? Sys.attribute(fd, Self.integrityAttribute)).flatMap { $0 }.flatMap(Self.parseIntegrity)
            let size = Int((try? Sys.fstat(fd))?.st_size ?? 0)
            do throws(Errno) {
                try Sys.writeAll(fd, data, path: path)
                let added = data.withUnsafeBytes { LibDeflate.crc32($0) }
                if let previous, previous.size == size {
                    let crc = Zlib.crc32Combine(previous.crc, added, secondLength: data.count)
                    try? Sys.setAttribute(
                        fd, Self.integrityAttribute, Self.integrityRecord(crc: crc, size: size + data.count))
                } else if size == 0 {
                    try? Sys.setAttribute(
                        fd, Self.integrityAttribute, Self.integrityRecord(crc: added, size: data.count))
                }
                if configuration.durability.syncsToDisk { try Sys.fsync(fd, path: path) }
            } catch {
                throw error.storageError("cannot append to the file", tier: .files, key: key, path: path)
            }
        }
    }

    // MARK: Reading

    /// The whole content of a file.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file, `.symbolicLink`, or an I/O error.
    public func read(_ key: String) throws -> Data {
        guard let data = try readIfPresent(key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return data
    }

    /// The content of a file, or `nil` when there is none.
    public func readIfPresent(_ key: String) throws -> Data? {
        guard let (folder, name) = try parent(of: key) else { return nil }
        return try withLock(key, .shared) {
            do {
                return try AtomicFile.read(in: folder, name: name, followGrowth: false)
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
    }

    /// Streams a file to `body` in chunks of ``FilesConfiguration/chunkSize`` under the shared lock (memory
    /// stays flat whatever the size).
    ///
    /// Each chunk is read straight into the memory of the `Data` handed out (no copy); `body` may keep it.
    /// - Returns: The number of bytes read.
    @discardableResult
    public func read(_ key: String, chunks body: (Data) throws -> Void) throws -> Int {
        let chunkSize = max(configuration.chunkSize, 1)
        return try streamFile(key) { fd, path in
            guard let memory = malloc(chunkSize) else {
                throw StorageError(.io, "cannot allocate a read buffer", tier: .files, key: key, path: path)
            }
            let count: Int
            do throws(Errno) {
                count = try Sys.read(fd, UnsafeMutableRawBufferPointer(start: memory, count: chunkSize))
            } catch {
                free(memory)
                throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
            }
            if count == 0 {
                free(memory)
                return 0
            }
            try body(Data(bytesNoCopy: memory, count: count, deallocator: .free))
            return count
        }
    }

    /// Streams a file to `body` through one buffer of ``FilesConfiguration/chunkSize`` reused for every chunk,
    /// under the shared lock: the fastest way to read a file whole, for a consumer that does not keep the bytes.
    ///
    /// - Parameters:
    ///   - key: The file to read.
    ///   - body: Gets each chunk; the memory is valid only until it returns.
    /// - Returns: The number of bytes read.
    @discardableResult
    public func forEachChunk(of key: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(configuration.chunkSize, 1), alignment: 4096)
        defer { buffer.deallocate() }
        return try streamFile(key) { fd, path in
            let count: Int
            do throws(Errno) {
                count = try Sys.read(fd, buffer)
            } catch {
                throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
            }
            if count > 0 { try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
            return count
        }
    }

    /// Opens a key's file under its shared lock, advises the kernel it will be read in order, and calls `step`
    /// (which reads one chunk and returns its size) until it returns 0.
    /// - Returns: The total of the sizes.
    private func streamFile(_ key: String, _ step: (Int32, String) throws -> Int) throws -> Int {
        let path = try path(for: key)
        return try withLock(key, .shared) {
            let fd = try openForReading(key)
            defer { Sys.close(fd) }
            Sys.adviseSequential(fd)
            var total = 0
            while true {
                let count = try step(fd, path)
                if count == 0 { return total }
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

    /// Opens a key's file for reading, from the root down by descriptor.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound`, `.symbolicLink`, or an I/O error.
    func openForReading(_ key: String) throws -> Int32 {
        guard let (folder, name) = try parent(of: key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return try open(name, in: folder, key: key)
    }

    func open(_ name: String, in folder: DirectoryHandle, key: String) throws -> Int32 {
        let path = folder.path(of: name)
        do {
            return try folder.openFile(name, O_RDONLY)
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key, path: path)
        } catch {
            throw error.storageError("cannot open the file", tier: .files, key: key, path: path)
        }
    }

    // MARK: Managing

    /// Whether a file exists under `key`.
    public func exists(_ key: String) throws -> Bool {
        guard let (folder, name) = try parent(of: key) else { return false }
        do throws(Errno) {
            return try folder.status(of: name).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        } catch {
            throw error.storageError("cannot inspect the file", tier: .files, key: key, path: folder.path(of: name))
        }
    }

    /// Deletes a file.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        guard let (folder, name) = try parent(of: key) else { return false }
        return try withLock(key, .exclusive) {
            do throws(Errno) {
                try folder.unlink(name)
            } catch  where error.code == ENOENT {
                return false
            } catch {
                throw error.storageError("cannot delete the file", tier: .files, key: key, path: folder.path(of: name))
            }
            if configuration.durability.syncsToDisk { try folder.sync() }
            return true
        }
    }

    /// Moves a file, replacing any file at the destination atomically. Moving a file onto itself does nothing.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file at `source`, or what a write throws.
    public func move(_ source: String, to destination: String) throws {
        guard let (from, fromName) = try parent(of: source) else {
            throw StorageError(.notFound, "there is no file to move", tier: .files, key: source)
        }
        let (to, toName) = try parent(of: destination, create: true)!
        try withLocks([(source, .exclusive), (destination, .exclusive)]) {
            if ExactString(source) == ExactString(destination) {
                guard try exists(source) else {
                    throw StorageError(.notFound, "there is no file to move", tier: .files, key: source)
                }
                return
            }
            do throws(Errno) {
                try from.rename(fromName, to: toName, in: to)
            } catch  where error.code == ENOENT {
                throw StorageError(
                    .notFound, "there is no file to move", tier: .files, key: source, path: from.path(of: fromName))
            } catch {
                throw error.storageError(
                    "cannot move the file", tier: .files, key: source, path: from.path(of: fromName))
            }
            if configuration.durability.syncsToDisk {
                try to.sync()
                try from.sync()
            }
        }
    }

    /// Copies a file (streamed), replacing any file at the destination atomically. Copying a file onto itself
    /// does nothing.
    ///
    /// Both locks are taken before anything is read, in the store's fixed order (see `withLocks`), so a copy
    /// never waits for itself and two copies in opposite directions never deadlock.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file at `source`, or what a write throws.
    public func copy(_ source: String, to destination: String) throws {
        guard let (from, fromName) = try parent(of: source) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: source)
        }
        if ExactString(source) == ExactString(destination) {
            try withLock(source, .shared) { Sys.close(try open(fromName, in: from, key: source)) }
            return
        }
        let (to, toName) = try parent(of: destination, create: true)!
        try withLocks([(source, .shared), (destination, .exclusive)]) {
            let fd = try open(fromName, in: from, key: source)
            defer { Sys.close(fd) }
            try writeLocked(in: to, name: toName, key: destination) { writer in
                do {
                    try writer.write(contentsOf: fd, chunkSize: configuration.chunkSize)
                } catch let error as StorageError {
                    throw error.attributed(tier: .files, key: source)
                }
            }
        }
    }

    /// Every file key under `prefix` (a folder key, or `""` for all), sorted; recursive unless asked not to be.
    public func list(prefix: String = "", recursive: Bool = true) throws -> [String] {
        let base = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        guard let start = try base.isEmpty ? tierFolder() : listedFolder(base) else { return [] }
        var keys: [String] = []
        func walk(_ folder: DirectoryHandle, _ relative: String) throws {
            guard let names = try? folder.entries() else { return }
            for name in names where !name.hasPrefix(StoragePaths.reservedPrefix) {
                let key = relative.isEmpty ? name : relative + "/" + name
                guard let info = try? folder.status(of: name) else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: keys.append(key)
                case S_IFDIR:
                    // Opened without following links: one swapped in meanwhile is skipped, never followed.
                    if recursive, let child = try? folder.openDirectory(name, create: false) { try walk(child, key) }
                default: continue  // Links and specials are never listed (nor followed).
                }
            }
        }
        try walk(start, base)
        return keys.sorted()
    }

    /// The folder `key` names, or `nil` when there is none or it names a file.
    private func listedFolder(_ key: String) throws -> DirectoryHandle? {
        try StoragePaths.validateKey(key, for: .files)
        do {
            return try paths.openFolder(key, in: .files)
        } catch  where error.code == .invalidKey {
            return nil  // The prefix names a file, not a folder.
        }
    }

    /// Size, dates, content type and recorded checksum of a file, or `nil` when there is none.
    public func metadata(_ key: String) throws -> FileMetadata? {
        let path = try path(for: key)
        let fd: Int32
        do { fd = try openForReading(key) } catch let error as StorageError where error.code == .notFound {
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
                let fd = try openForReading(key)
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
                        LibDeflate.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<count]), continuing: crc)
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
