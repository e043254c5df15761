public import Foundation
import StrataCore
import StrataSystem

/// A zip archive opened for reading: its entries listed without extracting anything, and any one of them read by
/// name as a stream.
///
/// ```swift
/// let archive = try ZipArchive(path: "/tmp/episodes.zip")
/// for entry in archive.entries { print(entry.name, entry.size, entry.modificationDate) }
/// try archive.read("notes/show.txt") { chunk in try output.write(contentsOf: chunk) }
/// let cover = try archive.data(for: "art/cover.jpg")
/// ```
///
/// Opening reads only the central directory, under the same ``ImportLimits`` and checks as
/// ``FileStore/importZip(from:into:limits:options:)``: the entry count, each entry's size and the total, the
/// expansion ratio, sizes and offsets that cannot be true of this archive, names that could leave a folder (`..`,
/// absolute paths, backslashes, NUL, an empty component), two entries of the same name, a file where another entry
/// needs a folder, symbolic links, encryption and unknown methods. Each is refused with a typed
/// ``/StrataCore/StorageError`` naming the archive (in `path`) and the entry (in `key`); nothing is read outside the
/// file or buffer. An archive is safe to share between threads: each read has its own position and decompressor.
public final class ZipArchive: Sendable {
    /// The archive's path, or the name given to an archive in memory: what its errors name.
    public let path: String
    /// Every entry, in the archive's order.
    public let entries: [ZipEntry]
    let reader: ZipReader
    /// The entries by name (compared by Unicode scalars, as keys are), as the reader needs them.
    let index: [ExactString: ZipReader.Entry]

    /// Opens the zip file at `path` (never following a symbolic link) and reads its central directory.
    /// - Parameters:
    ///   - path: The archive.
    ///   - limits: What its entries may declare and expand to. The default is the import's.
    /// - Throws: ``/StrataCore/StorageError``: `.notFound`, `.corrupt` (a damaged or truncated archive),
    ///   `.limitExceeded`, `.invalidKey` (a hostile name), `.invalidArgument` (a duplicate, an unknown method).
    public convenience init(path: String, limits: ImportLimits = ImportLimits()) throws {
        try self.init(reader: try ZipReader(path: path, limits: limits))
    }

    /// Reads the archive in the open file `handle` (any position; the handle's offset is not moved). The handle
    /// stays the caller's, and must stay open while the archive is used.
    /// - Parameters:
    ///   - handle: A file opened for reading.
    ///   - path: What errors name as the archive's path. The default is `/dev/fd/N`.
    ///   - limits: What its entries may declare and expand to.
    public convenience init(reading handle: FileHandle, path: String? = nil, limits: ImportLimits = ImportLimits())
        throws
    {
        let fd = FileDescriptor(rawValue: handle.fileDescriptor)
        try self.init(
            reader: try ZipReader(
                descriptor: fd, owned: false, path: path ?? "/dev/fd/\(fd.rawValue)", limits: limits))
    }

    /// Reads an archive held in memory.
    /// - Parameters:
    ///   - data: The archive's bytes.
    ///   - name: What errors name as the archive's path. The default is `in-memory archive`.
    ///   - limits: What its entries may declare and expand to.
    public convenience init(data: Data, name: String = "in-memory archive", limits: ImportLimits = ImportLimits())
        throws
    {
        try self.init(reader: ZipReader(data: data, name: name, limits: limits))
    }

    /// Lists `reader`'s entries under the import's checks; closes the reader when they fail.
    private init(reader: ZipReader) throws {
        do {
            let found = try reader.entries()
            // The import's plan holds the name, duplicate, clash and total-size rules: one set of rules for both.
            _ = try ImportPlan(entries: found, prefix: "", limits: reader.limits, archive: reader.path)
            var index: [ExactString: ZipReader.Entry] = [:]
            for entry in found { index[ExactString(entry.name)] = entry }
            self.index = index
            entries = found.map(ZipEntry.init)
        } catch {
            reader.close()
            throw error
        }
        self.reader = reader
        path = reader.path
    }

    deinit { reader.close() }

    /// The entry named `name` (compared by Unicode scalars), or `nil` when the archive has none.
    public subscript(name: String) -> ZipEntry? {
        index[ExactString(name)].map(ZipEntry.init)
    }
}
