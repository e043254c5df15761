public import Foundation
public import StrataCore
public import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built-in ``FileEngine``: one file per key under `<root>/files`, at the key's relative path, safe to share
/// between threads and processes.
///
/// Every file has a lock that holds across processes (`<root>/files/.strata-locks/`): readers share it, writers take it
/// alone. A lock file is removed by its last exclusive holder (see ``/StrataCore/FileLock``), so the lock folder holds
/// only the locks in use. Every operation opens the key's folder from the root down by descriptor, never through a
/// symbolic link, and works relative to it: a neighbour who swaps a folder for a link cannot redirect a read or a
/// write. Writes replace the file atomically (temporary file, `fsync`, `rename(2)`), so a reader never sees a
/// half-written file and a writer killed at any moment leaves the old file or the new one. Each write records the
/// content's CRC-32 and size in an extended attribute, renamed into place with the content, which
/// ``verify(prefix:)`` checks.
///
/// ```swift
/// let engine = try PosixFileEngine(paths: StoragePaths(root: "/var/lib/app"))
/// let files = FileStore(engine: engine)       // what FileStore(paths:) opens
/// ```
public final class PosixFileEngine: Sendable {
    /// The tier folder, `<root>/files`.
    public let directory: String
    /// The store's paths.
    public let paths: StoragePaths
    /// Durability and lock timeout.
    public let configuration: FilesConfiguration

    static let integrityAttribute = "user.strata.integrity"
    static let lockFolderName = StoragePaths.reservedPrefix + "locks"

    /// Opens the file tier of a store, creating its folder (0700), and removes what dead writers and imports left
    /// there (temporary files of processes that are gone, staging folders whose lock is free).
    /// - Throws: ``/StrataCore/StorageError`` when the folder cannot be created or opened, or is a link.
    public init(paths: StoragePaths, configuration: FilesConfiguration = FilesConfiguration()) throws {
        self.paths = paths
        self.configuration = configuration
        directory = try paths.directory(for: .files)
        let tier = try tierFolder()
        let locks = try lockFolder(in: tier)
        AtomicFile.removeStaleTemporaries(in: tier)
        ImportStaging.removeDead(in: tier, locks: locks)
    }

    /// The facts an engine opened on `paths` reports, without opening it.
    public static func facts(paths: StoragePaths, configuration: FilesConfiguration) -> BackendFacts {
        let directory = paths.directoryPath(for: .files)
        return BackendFacts(
            tier: .files, name: "filesystem",
            concurrencyGuarantee: "any thread, any process: per-file locks (readers share, writers exclude), atomic "
                + "replace by rename",
            durability: configuration.durability.syncsToDisk ? .durable : .atomicOnly,
            layout: [
                StorageLayoutEntry(.folder, directory, role: "one file per key, at the key's relative path"),
                StorageLayoutEntry(
                    .folder, directory + "/" + lockFolderName, role: "per-file locks, each removed by its last holder"),
            ])
    }

    // MARK: Folders and locks

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
            permissions: FilePermissions(paths.filePermissions))
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
                in: locks, name: name, reclaimsFile: true, permissions: FilePermissions(paths.filePermissions))
            do {
                held.append(try lock.acquire(mode, timeout: configuration.lockTimeout))
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
        return try body()
    }

    // MARK: Writing

    /// Replaces the file `key` with what `body` writes, under the key's exclusive lock (temporary file, `fsync`,
    /// `rename(2)`), recording its CRC-32 and size in an extended attribute renamed into place with it.
    public func write(_ key: String, _ body: (inout FileWriter) throws -> Void) throws {
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
                try Self.record(into: writer, body)
            }
        } catch let error as StorageError {
            throw error.attributed(tier: .files, key: key)
        }
    }

    /// Streams what `body` writes into `writer` through a ``FileWriter``, then sets the integrity attribute from
    /// the writer's CRC-32 and size: the steps of every write, and of an import's staged file.
    static func record(into writer: consuming AtomicFile.Writer, _ body: (inout FileWriter) throws -> Void) throws {
        var atomic = writer
        let (crc, size) = try withoutActuallyEscaping({ (bytes: UnsafeRawBufferPointer) in
            try atomic.write(bytes)
        }) { sink in
            var writer = FileWriter(sink: sink)
            try body(&writer)
            return (writer.crc, writer.count)
        }
        try atomic.setExtendedAttribute(integrityAttribute, integrityRecord(crc: crc, size: size))
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

    /// The CRC-32 and size recorded with an open file, or `nil` when there is no readable record.
    static func recordedIntegrity(_ fd: FileDescriptor) -> (crc: UInt32, size: Int)? {
        (try? Sys.attribute(fd, integrityAttribute)).flatMap { $0 }.flatMap(parseIntegrity)
    }

    /// Reads, transforms and replaces a file atomically across processes (the file's lock is held exclusively
    /// throughout).
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

    /// Appends `data` to a file (creating it), under the file's exclusive lock, keeping its checksum current
    /// (the recorded CRC-32 combined with the new bytes' one, without reading the file again).
    public func append(_ data: Data, to key: String) throws {
        let (folder, name) = try parent(of: key, create: true)!
        let path = folder.path(of: name)
        try withLock(key, .exclusive) {
            let fd: FileDescriptor
            do throws(Errno) {
                fd = try folder.openFile(
                    name, .writeOnly, [.create, .append], permissions: FilePermissions(paths.filePermissions))
            } catch {
                throw error.storageError("cannot open the file to append", tier: .files, key: key, path: path)
            }
            defer { Sys.close(fd) }
            let previous = Self.recordedIntegrity(fd)
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
}
