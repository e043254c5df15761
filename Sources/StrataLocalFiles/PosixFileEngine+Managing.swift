public import Foundation
import StrataCore
public import StrataFiles
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Existence, deletion, moves, copies, listing, metadata and verification, each relative to the key's folder.
extension PosixFileEngine {
    /// Whether a regular file exists under `key` (a folder or a link is not one).
    public func exists(_ key: String) throws -> Bool {
        guard let (folder, name) = try parent(of: key) else { return false }
        do throws(Errno) {
            return try folder.status(of: name).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        } catch {
            throw error.storageError("cannot inspect the file", tier: .files, key: key, path: folder.path(of: name))
        }
    }

    /// Deletes a file under its exclusive lock.
    /// - Returns: Whether there was one.
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

    /// Moves a file by `rename(2)` under both keys' exclusive locks, replacing any file at the destination
    /// atomically. Moving a file onto itself does nothing.
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
    /// Both locks are taken before anything is read, in the engine's fixed order (see `withLocks`), so a copy
    /// never waits for itself and two copies in opposite directions never deadlock.
    public func copy(_ source: String, to destination: String) throws {
        guard let (from, fromName) = try parent(of: source) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: source)
        }
        if ExactString(source) == ExactString(destination) {
            try withLock(source, .shared) { try open(fromName, in: from, key: source).close() }
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

    /// Every file key under `prefix`, sorted, walking folders by descriptor: links and special files are neither
    /// listed nor followed, and names under the reserved prefix (locks, temporaries, staging) are skipped. An entry
    /// removed or swapped for a link while the walk passes is skipped; a folder or entry that cannot be read (an
    /// I/O error, a permission) fails the listing rather than leave its keys out of it.
    ///
    /// A path longer than ``/StrataCore/StoragePaths/maximumKeyLength`` is no key, and the walk never enters a
    /// folder whose path is that long: a tree nested deeper (another program's) is listed to that depth and no
    /// further. The walk keeps its own stack of the folders still to list, and holds a descriptor for each folder
    /// on the way down to the one it lists, so its stack and its descriptors are bounded whatever the tree.
    public func list(prefix: String, recursive: Bool) throws -> [String] {
        guard let start = try prefix.isEmpty ? tierFolder() : listedFolder(prefix) else { return [] }
        var keys: [String] = []
        // Each folder to list: its parent (`nil` for the start) and name there, and its key. A folder is opened
        // when its turn comes, so the descriptors held are those of the folders whose children are still pending.
        var pending: [(parent: DirectoryHandle?, name: String, key: String)] = [(nil, "", prefix)]
        while let (parent, name, relative) = pending.popLast() {
            var folder = start
            if let parent {
                // `nil`: removed meanwhile, or swapped for a link or a file.
                guard let child = try parent.openListedFolder(name) else { continue }
                folder = child
            }
            for name in try folder.entries(of: .files) where !name.hasPrefix(StoragePaths.reservedPrefix) {
                let key = relative.isEmpty ? name : relative + "/" + name
                guard key.utf8.count <= StoragePaths.maximumKeyLength else { continue }
                // `nil`: removed meanwhile.
                guard let info = try folder.status(ofListed: name, tier: .files) else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: keys.append(key)
                // A folder whose key leaves no room for a `/` and a name holds no key.
                case S_IFDIR where recursive && key.utf8.count + 2 <= StoragePaths.maximumKeyLength:
                    pending.append((folder, name, key))
                default: continue  // Links and specials are never listed (nor followed).
                }
            }
        }
        return keys.sorted()
    }

    /// The folder `key` names, or `nil` when there is none or it names a file.
    private func listedFolder(_ key: String) throws -> DirectoryHandle? {
        do {
            return try paths.openFolder(key, in: .files)
        } catch  where error.code == .invalidKey {
            return nil  // The prefix names a file, not a folder.
        }
    }

    /// Size, dates, content type and recorded checksum of a file, or `nil` when there is none.
    public func metadata(_ key: String) throws -> FileMetadata? {
        let fd: FileDescriptor
        let path: String
        do { (fd, path) = try openForReading(key) } catch let error as StorageError where error.code == .notFound {
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
        let recorded = Self.recordedIntegrity(fd)
        return FileMetadata(
            key: key, size: Int(info.st_size), modificationDate: Self.date(info, modification: true),
            accessDate: Self.date(info, modification: false), contentType: ContentType.of(key: key, head: head),
            checksum: recorded?.size == Int(info.st_size) ? recorded?.crc : nil)
    }

    /// Recomputes the CRC-32 of every file under `prefix`, each under its shared lock, and compares it with the
    /// extended attribute recorded at write time.
    public func verify(prefix: String) throws -> [FileProblem] {
        var problems: [FileProblem] = []
        for key in try list(prefix: prefix, recursive: true) {
            try withOpenFile(key) { fd, path in
                guard let recorded = Self.recordedIntegrity(fd) else {
                    problems.append(FileProblem(key: key, kind: .unrecorded, detail: "no checksum was recorded"))
                    return
                }
                let (crc, size) = try Self.checksum(of: fd, key: key, path: path)
                if let problem = FileProblem(
                    key: key, recordedCRC: recorded.crc, recordedSize: recorded.size, crc: crc, size: size)
                {
                    problems.append(problem)
                }
            }
        }
        return problems
    }

    /// The CRC-32 and size of the whole content of the open file `fd` (read from its start, whatever its offset).
    /// - Throws: ``/StrataCore/StorageError`` naming `key` and `path` when it cannot be read.
    package static func checksum(of fd: FileDescriptor, key: String, path: String) throws -> (crc: UInt32, size: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var crc: UInt32 = 0
        var size = 0
        while true {
            let count: Int
            do throws(Errno) {
                count = try Sys.pread(fd, buffer, at: Int64(size))
            } catch {
                throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
            }
            if count == 0 { return (crc, size) }
            crc = LibDeflate.crc32(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), continuing: crc)
            size += count
        }
    }

    /// Removes the temporary files of writers whose process is gone, and the staging folders of dead imports.
    ///
    /// A temporary file names its writer's process; one whose process is alive is never removed, whatever its age
    /// (`age` is not needed to tell: the process ids and the import locks tell exactly).
    public func removeLeftovers(olderThan age: TimeInterval) throws -> Int {
        let tier = try tierFolder()
        let locks = try lockFolder(in: tier)
        return AtomicFile.removeStaleTemporaries(in: tier) + ImportStaging.removeDead(in: tier, locks: locks)
    }
}
