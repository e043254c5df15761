import Foundation
import StrataCore

/// Which pack holds each blob: the union of the index files of `index/`, each a ``SealedFile`` of kind 2 holding
/// the JSON list of ``PackRecord``. A blob listed twice (after an interrupted prune) may be read from either.
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

    /// Reads every index file of `folder`.
    /// - Parameter onDamage: Called with the error of a damaged file, which is then skipped; without it, the
    ///   error is thrown.
    /// - Throws: ``/StrataCore/StorageError`` naming the damaged file (`.corrupt`, `.authenticationFailed`,
    ///   `.unsupportedVersion`) or an I/O error.
    static func load(
        from folder: DirectoryHandle, keys: RepositoryKeys, maximumChunk: Int,
        onDamage: ((StorageError) -> Void)? = nil
    ) throws -> RepositoryIndex {
        var index = RepositoryIndex()
        for name in try BackupRepository.names(in: folder) {
            do {
                let records = try read(name, in: folder, keys: keys, maximumChunk: maximumChunk)
                index.files.append(name)
                for record in records {
                    index.packs[record.name] = record
                    for entry in record.blobs {
                        index.blobs[BlobID(hex: entry.id)!] = Location(pack: record.name, entry: entry)
                    }
                }
            } catch let error as StorageError {
                guard let onDamage else { throw error }
                onDamage(error)
            }
        }
        return index
    }

    /// Reads one index file and checks every record in it (see ``PackRecord/check(maximumChunk:path:)``).
    /// - Throws: ``/StrataCore/StorageError`` naming the file: `.tooLarge` over
    ///   ``BackupRepository/maximumMetadataFileSize`` (refused unread), `.corrupt`, `.authenticationFailed`.
    static func read(_ name: String, in folder: DirectoryHandle, keys: RepositoryKeys, maximumChunk: Int) throws
        -> [PackRecord]
    {
        let path = folder.path(of: name)
        guard
            let data = try AtomicFile.read(
                in: folder, name: name, maximumSize: BackupRepository.maximumMetadataFileSize, followGrowth: false)
        else {
            throw StorageError(.corrupt, "an index file vanished while being read", path: path)
        }
        let body = try SealedFile.open(Array(data), kind: .index, name: name, key: keys.seal, path: path)
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
