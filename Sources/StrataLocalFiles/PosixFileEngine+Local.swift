import Foundation
import StrataCore
public import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// What only a folder of a local disk can do: paths.
extension PosixFileEngine: LocalFileEngine {
    /// The absolute path of a key, refusing anything that could leave the store.
    public func path(for key: String, creatingParents: Bool = false) throws -> String {
        try paths.path(for: key, in: .files, createParents: creatingParents)
    }
}

// The engine operations a local folder does its own way: erasing a file's blocks, access times.
extension PosixFileEngine {
    /// Deletes a file after overwriting its bytes with zeros and forcing them to disk, so that neither the file's
    /// blocks nor another name of the same file keeps its content.
    ///
    /// It holds the file's exclusive lock throughout, so no reader sees the zeros. A crash after the overwrite and
    /// before the unlink leaves a file of zeros under `key`.
    ///
    /// On a copy-on-write or log-structured file system (Btrfs, ZFS) or an SSD that remaps blocks, the overwrite
    /// goes to new blocks and the old ones may survive until reused: only encryption at rest covers that.
    /// - Returns: Whether there was a file.
    /// - Throws: ``/StrataCore/StorageError`` when the file cannot be overwritten or deleted; it is kept then.
    public func deleteSecurely(_ key: String) throws -> Bool {
        guard let (folder, name) = try parent(of: key) else { return false }
        return try withLock(key, .exclusive) {
            let path = folder.path(of: name)
            let fd: FileDescriptor
            do throws(Errno) {
                fd = try folder.openFile(name, .writeOnly)
            } catch  where error.code == ENOENT {
                return false
            } catch {
                throw error.storageError("cannot open the file to erase it", tier: .files, key: key, path: path)
            }
            defer { Sys.close(fd) }
            do throws(Errno) {
                let size = Int64(try Sys.fstat(fd).st_size)
                let zeros = [UInt8](repeating: 0, count: Int(min(size, 1 << 20)))
                var offset: Int64 = 0
                while offset < size {
                    let count = Int(min(Int64(zeros.count), size - offset))
                    try Sys.pwriteAll(
                        fd, count == zeros.count ? zeros : Array(zeros.prefix(count)), at: offset, path: path)
                    offset += Int64(count)
                }
                try Sys.fsync(fd, path: path)
                try folder.unlink(name)
            } catch {
                throw error.storageError("cannot erase the file", tier: .files, key: key, path: path)
            }
            if configuration.durability == .durable { try folder.sync() }
            return true
        }
    }

    /// Sets a file's access time to now, keeping its modification time.
    public func markUsed(_ key: String) {
        guard let (folder, name) = try? parent(of: key) else { return }
        try? Sys.touchAccessTime(folder.fd, name, path: folder.path(of: name))
    }
}
