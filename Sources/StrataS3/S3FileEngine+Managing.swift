public import Foundation
import StrataCore
public import StrataFiles

extension S3FileEngine {
    /// Whether an object exists (a HEAD).
    public func exists(_ key: String) throws -> Bool {
        try client.head(key) != nil
    }

    /// Deletes an object. S3 answers a DELETE the same whether there was an object or not, so the engine asks
    /// first (HEAD): the answer is only as current as that HEAD.
    /// - Returns: Whether there was one.
    public func delete(_ key: String) throws -> Bool {
        guard try client.head(key) != nil else { return false }
        try client.delete(key)
        forgetUse(of: key)
        return true
    }

    /// Copies an object on the server (the bytes never pass through this process), with its content type and
    /// recorded checksum; the destination is replaced at once. Copying an object onto itself does nothing.
    /// - Throws: `.notFound` when there is no object at `source`; `.invalidArgument` for an object above 5 GiB
    ///   (S3's limit for one copy).
    public func copy(_ source: String, to destination: String) throws {
        if ExactString(source) == ExactString(destination) {
            _ = try require(source)
            return
        }
        do {
            try client.copy(source, to: destination)
        } catch  where error.code == .notFound {
            throw StorageError(.notFound, "there is no file to copy", tier: .files, key: source)
        }
    }

    /// Moves an object: a server-side copy pinned to the source's entity tag (`x-amz-copy-source-if-match`, tried
    /// again when the source changed between the HEAD and the copy), then a delete of the source. Not atomic: a
    /// reader meanwhile sees the file at both keys, never at neither; a write to the source between the copy and
    /// the delete is lost with it (Ceph 16.2 has no conditional DELETE).
    /// - Throws: `.notFound` when there is no object at `source`.
    public func move(_ source: String, to destination: String) throws {
        if ExactString(source) == ExactString(destination) {
            _ = try require(source)
            return
        }
        while try !copyIfUnchanged(source, to: destination) {}
        try client.delete(source)
    }

    /// Copies `source` if it is still the version a HEAD finds.
    /// - Returns: false when it was replaced or deleted between the HEAD and the copy (look again).
    /// - Throws: `.notFound` when there is no object at `source`.
    private func copyIfUnchanged(_ source: String, to destination: String) throws -> Bool {
        let tag = try require(source).etag
        return try copy(source, to: destination, ifMatch: tag)
    }

    /// Copies `source` if its entity tag is `tag`; false when it is not (or it is gone).
    private func copy(_ source: String, to destination: String, ifMatch tag: String) throws(StorageError) -> Bool {
        do {
            try client.copy(source, to: destination, precondition: .ifMatch(tag))
        } catch {
            guard error.code == .conflict || error.code == .notFound else { throw error }
            return false
        }
        return true
    }

    /// Every file key under `prefix`, sorted by their bytes: a ListObjectsV2 under `prefix/` (with the delimiter
    /// `/` when not `recursive`), every page. Objects whose keys the store could not have written (an empty
    /// component, a reserved name, a folder marker ending in `/`) are left out.
    public func list(prefix: String, recursive: Bool) throws -> [String] {
        var folder = prefix
        if !folder.isEmpty, !folder.hasSuffix("/") { folder += "/" }
        let objects = try client.list(prefix: folder, delimiter: recursive ? nil : "/").objects
        return objects.map(\.key).filter { key in
            (try? StoragePaths.validateKey(key)) != nil
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// An object's size, modification date, content type and recorded checksum, from a HEAD; nil when there is
    /// none. S3 keeps no access time: the access date is the later of the modification date and the last use this
    /// process recorded (``markUsed(_:)``).
    public func metadata(_ key: String) throws -> FileMetadata? {
        guard let info = try client.head(key) else { return nil }
        let recorded = Self.recordedIntegrity(info.metadata)
        let modified = info.lastModified ?? Date(timeIntervalSince1970: 0)
        return FileMetadata(
            key: key, size: Int(info.size), modificationDate: modified,
            accessDate: accessDate(of: key, modified: modified),
            contentType: info.contentType ?? ContentType.of(key: key, head: []),
            checksum: recorded?.size == Int(info.size) ? recorded?.crc : nil)
    }

    /// Streams every object under `prefix` (one GET each) and compares its CRC-32 and size with those its metadata
    /// records; an object deleted meanwhile is skipped.
    /// - Returns: The objects that do not match, and those with nothing recorded (written by another program, or by
    ///   an engine from before multipart writes were staged).
    public func verify(prefix: String) throws -> [FileProblem] {
        var problems: [FileProblem] = []
        for key in try list(prefix: prefix, recursive: true) {
            var writer = FileWriter(sink: { _ in })
            let info: S3ObjectInfo
            do {
                info = try client.read(key) { try writer.write($0) }
            } catch let error as StorageError where error.code == .notFound {
                continue
            }
            guard let recorded = Self.recordedIntegrity(info.metadata) else {
                problems.append(FileProblem(key: key, kind: .unrecorded, detail: "no checksum was recorded"))
                continue
            }
            if writer.count != recorded.size {
                problems.append(
                    FileProblem(
                        key: key, kind: .sizeMismatch, detail: "recorded \(recorded.size) bytes, found \(writer.count)")
                )
            } else if writer.crc != recorded.crc {
                let expected = Self.hex(recorded.crc)
                let found = Self.hex(writer.crc)
                problems.append(
                    FileProblem(
                        key: key, kind: .checksumMismatch, detail: "recorded CRC-32 \(expected), computed \(found)"))
            }
        }
        return problems
    }

    /// Removes what writers that died (or lost the server) mid-write left more than `age` seconds ago: aborts the
    /// multipart uploads under the engine's prefix started before then, and deletes the staged objects (uploads
    /// completed, not yet copied into place, or copied but not deleted) written before then. Neither is ever
    /// visible as a file, so no reader loses anything; a writer still busy with one that old fails, and its file
    /// keeps its old content. Nothing runs it on its own: the store's owner calls it (`FileStore.removeLeftovers`).
    /// - Returns: How many uploads and staged objects were removed.
    public func removeLeftovers(olderThan age: TimeInterval) throws -> Int {
        let cutoff = Date().addingTimeInterval(-age)
        var removed = 0
        for upload in try client.listMultipartUploads() where (upload.initiated ?? .distantPast) <= cutoff {
            try client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
            removed += 1
        }
        return removed + (try removeStagedObjects(olderThan: cutoff))
    }

    /// The description of an object.
    /// - Throws: `.notFound` when there is none.
    private func require(_ key: String) throws -> S3ObjectInfo {
        guard let info = try client.head(key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return info
    }
}
