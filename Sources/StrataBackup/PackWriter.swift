import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one pack: sealed blobs appended to a temporary file in `data/`, then the sealed header and its length,
/// `fsync`, `rename` to the pack's name and `fsync` of the folder. Each full window of written bytes is handed to
/// the disk at once (`sync_file_range`), so the disk writes while the next blobs are sealed and the `fsync` of a
/// closed pack, on the backup's own thread, waits for its last window only. Until the rename the pack does not exist; a
/// temporary left by a killed process carries `AtomicFile`'s prefix and exclusive lock, so the next run removes it.
///
/// Layout: `STBK`, version 1, kind 5; the blobs (see ``BlobCodec``); the header (a ``SealedFile`` of kind 4 named
/// after the pack, holding the JSON list of ``PackEntry``); the header's length as 4 bytes little-endian.
final class PackWriter {
    let name: String
    private let folder: DirectoryHandle
    private let keys: RepositoryKeys
    private let temporary: String
    private var fd: FileDescriptor
    private(set) var size: Int
    private(set) var entries: [PackEntry] = []
    /// Where the bytes not yet handed to the disk start.
    private var writebackStart = 0

    init(in folder: DirectoryHandle, keys: RepositoryKeys) throws {
        self.folder = folder
        self.keys = keys
        name = Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        temporary = AtomicFile.temporaryPrefix + "\(getpid())-" + name.prefix(16)
        let path = folder.path(of: temporary)
        do {
            fd = try folder.openFile(temporary, .writeOnly, [.create, .exclusive])
            try Sys.flock(fd, LOCK_EX | LOCK_NB, path: path)
        } catch {
            throw error.storageError("cannot create a pack", path: path)
        }
        size = 0
        try append(SealedFile.prefix(.pack))
    }

    deinit {
        if fd.rawValue >= 0 {
            Sys.close(fd)
            try? folder.unlink(temporary)
        }
    }

    /// Appends one sealed blob.
    func add(_ sealed: [UInt8], id: BlobID, type: UInt8, rawLength: Int) throws {
        entries.append(
            PackEntry(id: id.description, type: type, offset: size, length: sealed.count, rawLength: rawLength))
        try append(sealed)
    }

    /// Writes the header, makes the pack durable under its name, and returns its record.
    func finish() throws -> PackRecord {
        let body = Array(try JSONEncoder().encode(entries))
        let header = SealedFile.seal(body, kind: .packHeader, name: name, key: keys.seal)
        let length = UInt32(header.count)
        try append(header + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: length >> $0) })
        let path = folder.path(of: name)
        do {
            try Sys.fsync(fd, path: path)
        } catch {
            throw error.storageError("cannot flush a pack to disk", path: path)
        }
        do {
            try folder.rename(temporary, to: name)
        } catch {
            throw error.storageError("cannot name a pack", path: path)
        }
        Sys.close(fd)
        fd = FileDescriptor(rawValue: -1)
        try folder.sync()
        return PackRecord(name: name, size: size, blobs: entries)
    }

    private func append(_ bytes: [UInt8]) throws {
        let path = folder.path(of: temporary)
        do {
            try ByteIO.write(fd, bytes, path: path)
        } catch {
            throw error.storageError("cannot write a pack", path: path)
        }
        size += bytes.count
        if size - writebackStart >= AtomicFile.Writer.writebackWindow {
            Sys.startWriteback(fd, offset: writebackStart, count: size - writebackStart, path: path)
            writebackStart = size
        }
    }
}
