import Foundation
import StrataCore

// Where multipart writes are completed before one copy puts them in place (see `S3StreamedUpload.finish`).
extension S3FileEngine {
    /// The folder, under the engine's prefix, of the staged writes: a name the store refuses as a key
    /// (``StoragePaths/reservedPrefix``), so that no listing, reader, capture or `verify` of the files tier shows
    /// what is in it.
    static let stagingFolder = StoragePaths.reservedPrefix + "upload/"

    /// The folder of the staged writes of `key`: named by the SHA-256 of the key's bytes, the same length whatever
    /// the key, so that `deleteSecurely` finds the upload or the object a killed writer of the key left.
    static func stagingPrefix(for key: String) throws(StorageError) -> String {
        let digest = try S3Digest.sha256 { feed in
            var bytes = key
            bytes.withUTF8 { feed(UnsafeRawBufferPointer($0)) }
        }
        return stagingFolder + Hex.encode(digest) + "/"
    }

    /// A fresh staging key for one write of `key`.
    static func stagingKey(for key: String) throws(StorageError) -> String {
        try stagingPrefix(for: key) + UUID().uuidString.lowercased()
    }

    /// Deletes the staged objects that were written more than `age` seconds ago: what writers killed between the
    /// completion of their upload and the delete that follows its copy left. A younger one may be a live writer's,
    /// about to be copied.
    /// - Returns: How many were deleted.
    func removeStagedObjects(olderThan cutoff: Date) throws(StorageError) -> Int {
        var removed = 0
        for staged in try client.list(prefix: Self.stagingFolder).objects
        where (staged.lastModified ?? .distantPast) <= cutoff {
            try client.delete(staged.key)
            removed += 1
        }
        return removed
    }

    /// Erases what writes of `key` staged: aborts their uploads, deletes every version of their objects.
    func eraseStaged(_ key: String) throws(StorageError) {
        let staging = try Self.stagingPrefix(for: key)
        for upload in try client.listMultipartUploads(prefix: staging) {
            try client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
        }
        for version in try client.listObjectVersions(prefix: staging) {
            try client.delete(version.key, versionID: version.versionID)
        }
    }
}
