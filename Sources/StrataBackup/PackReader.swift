import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads blobs and the header of one pack of `data/`, keeping it open between reads.
final class PackReader: Sendable {
    let name: String
    let path: String
    private let fd: FileDescriptor
    private let keys: RepositoryKeys
    /// The pack's size in bytes.
    let size: Int

    /// Opens a pack.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming the pack when it is missing.
    init(name: String, in folder: DirectoryHandle, keys: RepositoryKeys) throws {
        self.name = name
        self.keys = keys
        path = folder.path(of: name)
        let status: stat
        do {
            (fd, status) = try folder.openRegularFile(name)
        } catch let error where error.code == ENOENT {
            throw StorageError(
                .corrupt, "a pack the index lists is missing", path: folder.path(of: name),
                recovery: "Run `check`; restore the pack from a copy of the repository, or forget the snapshots "
                    + "that need it")
        } catch {
            throw error.storageError("cannot open a pack", path: folder.path(of: name))
        }
        size = Int(status.st_size)
        Sys.adviseSequential(fd)  // Restores and checks read a pack's blobs in order: a larger read-ahead.
    }

    deinit { Sys.close(fd) }

    /// Reads `count` bytes at `offset`.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when the pack ends first (it was truncated).
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        // Subtraction, not `offset + count`: lengths from a file may be anything, and must not overflow.
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw StorageError(
                .corrupt, "the pack is shorter than its index says (truncated)", path: path,
                recovery: "Run `check`; restore the pack from a copy of the repository")
        }
        // Not zeroed first: every byte is read into it before it is returned.
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            while filled < count {
                let got: Int
                do throws(Errno) {
                    got = try Sys.pread(
                        fd, UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled..<count])),
                        at: Int64(offset + filled), path: path)
                } catch {
                    throw error.storageError("cannot read a pack", path: path)
                }
                if got == 0 {
                    throw StorageError(.corrupt, "the pack ended while being read (truncated)", path: path)
                }
                filled += got
            }
        }
    }

    /// The plaintext of a blob.
    /// - Throws: ``/StrataCore/StorageError`` `.authenticationFailed` or `.corrupt` naming the pack (`path`) and the
    ///   blob (`key`).
    func blob(_ entry: PackEntry, id: BlobID) throws -> [UInt8] {
        try blobs([(id, entry)])[0]
    }

    /// The plaintexts of blobs that lie one after the other in the pack (each starting where the one before ends),
    /// read with one `pread`.
    /// - Throws: What ``blob(_:id:)`` throws, for the first blob that fails.
    func blobs(_ run: [(BlobID, PackEntry)]) throws -> [[UInt8]] {
        guard let first = run.first?.1, let last = run.last?.1 else { return [] }
        let sealed: [UInt8]
        do { sealed = try read(at: first.offset, count: last.offset + last.length - first.offset) } catch var error
            as StorageError
        {
            error.key = run[0].0.description
            throw error
        }
        return try run.map { id, entry in
            let bytes = sealed[(entry.offset - first.offset)..<(entry.offset - first.offset + entry.length)]
            switch BlobCodec.open(bytes, id: id, type: entry.type, rawLength: entry.rawLength, keys: keys)
            {
            case .success(let content):
                return content
            case .failure(.unauthentic):
                var error = StorageError(
                    .authenticationFailed, "a blob fails its authentication: the pack was edited, damaged or swapped",
                    key: id.description, path: path,
                    recovery: "Run `check`; restore the pack from a copy of the repository")
                error.operation = "read blob"
                throw error
            case .failure(.damaged):
                var error = StorageError(
                    .corrupt, "a blob does not decode to its id", key: id.description, path: path,
                    recovery: "Run `check`; restore the pack from a copy of the repository")
                error.operation = "read blob"
                throw error
            }
        }
    }

    /// The entries of the pack's own header.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt`, `.unsupportedVersion` or `.authenticationFailed` naming the
    ///   pack.
    func header() throws -> [PackEntry] {
        let prefix = try read(at: 0, count: SealedFile.prefixSize)
        guard Array(prefix[0..<4]) == SealedFile.magic else {
            throw StorageError(.corrupt, "the file is not a pack (bad magic)", path: path)
        }
        guard prefix[4] == SealedFile.version else {
            throw StorageError(
                .unsupportedVersion, "the pack has format version \(prefix[4]); this Strata reads version 1",
                path: path)
        }
        guard size >= SealedFile.prefixSize + 4 else {
            throw StorageError(.corrupt, "the pack is too short to hold a header (truncated)", path: path)
        }
        let lengthBytes = try read(at: size - 4, count: 4)
        let length = lengthBytes.reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length >= SealedFile.overhead, length <= size - 4 - SealedFile.prefixSize else {
            throw StorageError(.corrupt, "the pack's header length is impossible (truncated or damaged)", path: path)
        }
        let sealed = try read(at: size - 4 - length, count: length)
        let body = try SealedFile.open(sealed, kind: .packHeader, name: name, key: keys.seal, path: path)
        guard let entries = try? JSONDecoder().decode([PackEntry].self, from: Data(body)) else {
            throw StorageError(.corrupt, "the pack's header does not decode", path: path)
        }
        return entries
    }
}
