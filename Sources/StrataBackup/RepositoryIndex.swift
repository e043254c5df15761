import Foundation
import StrataCore
import StrataSystem

/// Which pack holds each blob: the union of the index files of `index/`, each a ``SealedFile`` of kind 2 holding
/// the JSON list of ``PackRecord``. A blob listed twice (after an interrupted prune) may be read from either.
///
/// An index file that cannot be read is left out (``damaged``): the blobs it lists are unknown until the index is
/// rebuilt from the packs (``BackupRepository/rebuildIndex()``), and every other file still counts.
struct RepositoryIndex {
    /// Where a blob is.
    struct Location {
        var pack: String
        var entry: PackEntry
    }

    var blobs: [BlobID: Location] = [:]
    var packs: [String: PackRecord] = [:]
    /// The names of the index files read.
    var files: [String] = []
    /// The index files that could not be read, left out.
    var damaged: [DamagedFile] = []
    /// The paths of the entries of `index/` whose names the repository never gives an index file: not read.
    var foreign: [String] = []

    /// Reads every index file of `folder`, leaving out (and listing in ``damaged``) those that cannot be read.
    /// - Throws: ``/StrataCore/StorageError`` only when the folder cannot be listed.
    static func load(from folder: DirectoryHandle, keys: RepositoryKeys, maximumChunk: Int) throws -> RepositoryIndex {
        var index = RepositoryIndex()
        let (names, foreign) = try BackupRepository.listing(of: folder)
        index.foreign = foreign
        for name in names {
            do {
                index.add(try read(name, in: folder, keys: keys, maximumChunk: maximumChunk))
                index.files.append(name)
            } catch var error as StorageError {
                // Gone since the listing: only a prune or a rebuild removes index files, and each replaced it first.
                if error.code == .notFound { continue }
                if error.code != .unsupportedVersion {
                    error.recovery =
                        "Run `check --repair` to rebuild the index from the packs (the packs list their own blobs)"
                }
                index.damaged.append(DamagedFile(kind: .index, name: name, error: error))
            }
        }
        return index
    }

    /// Adds checked records.
    mutating func add(_ records: [PackRecord]) {
        for record in records {
            packs[record.name] = record
            for entry in record.blobs {
                blobs[BlobID(hex: entry.id)!] = Location(pack: record.name, entry: entry)
            }
        }
    }

    /// Reads one index file and checks every record in it (see ``decode(_:maximumChunk:path:)``).
    /// - Throws: ``/StrataCore/StorageError`` naming the file: `.notFound` when it is gone, `.tooLarge` over
    ///   ``BackupRepository/maximumMetadataFileSize`` (refused unread), `.corrupt`, `.authenticationFailed`,
    ///   `.unsupportedVersion`.
    static func read(_ name: String, in folder: DirectoryHandle, keys: RepositoryKeys, maximumChunk: Int) throws
        -> [PackRecord]
    {
        let path = folder.path(of: name)
        guard
            let data = try AtomicFile.read(
                in: folder, name: name, maximumSize: BackupRepository.maximumMetadataFileSize, followGrowth: false)
        else {
            throw StorageError(.notFound, "the index file vanished while being read", path: path)
        }
        let body = try SealedFile.open(Array(data), kind: .index, name: name, key: keys.seal, path: path)
        return try decode(body, maximumChunk: maximumChunk, path: path)
    }

    /// Decodes the body of an index file (its JSON, once opened) and checks every record in it (see
    /// ``PackRecord/check(maximumChunk:path:)``): nothing reads, allocates or deletes by a record before that.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming `path`, and the pack or blob at fault (`key`).
    static func decode(_ body: [UInt8], maximumChunk: Int, path: String) throws -> [PackRecord] {
        guard let records = try? JSONDecoder().decode([PackRecord].self, from: Data(body)) else {
            throw StorageError(.corrupt, "the index file does not decode", path: path)
        }
        for record in records { try record.check(maximumChunk: maximumChunk, path: path) }
        return records
    }

    /// Writes a new index file listing `records`, durably.
    /// - Returns: Its name.
    static func write(_ records: [PackRecord], in folder: DirectoryHandle, keys: RepositoryKeys) throws -> String {
        let name = BackupRepository.randomName()
        let body = Array(try JSONEncoder().encode(records))
        try AtomicFile.write(
            Data(SealedFile.seal(body, kind: .index, name: name, key: keys.seal)), in: folder, name: name)
        return name
    }
}
