import Foundation
import StrataCore
import StrataSystem

/// The content of a snapshot file of `snapshots/`: a ``SealedFile`` of kind 3, named by the snapshot id, holding
/// the binary format 2 (``encoded()``; format 1, JSON, is still read).
struct SnapshotManifest: Sendable {
    /// One file of the snapshot: its description and its chunks in order.
    struct Entry: Sendable {
        var file: CapturedFile
        /// Blob ids, in order; their plaintexts concatenated are the content.
        var chunks: [BlobID]

        init(_ file: CapturedFile, chunks: [BlobID] = []) {
            self.file = file
            self.chunks = chunks
        }

        /// Whether `file` may reuse this entry's chunks without being read: the same path (exactly), tier, size
        /// and modification time.
        func matches(_ other: CapturedFile) -> Bool {
            file.size == other.size && file.modificationTime == other.modificationTime && file.tier == other.tier
                && ExactString(file.path) == ExactString(other.path)
        }
    }

    /// The format version this code writes.
    static let version = 2

    var time: Date
    var host: String
    var parent: String?
    var metadata: [String: String]
    /// The files, in the order they were added; empty when only the header was read.
    var files: [Entry]
    /// How many files the snapshot holds (``files``' count once they are read).
    var fileCount: Int
    /// The sum of their sizes.
    var totalSize: Int64
    /// Files whose chunks came from the parent unread.
    var reusedFiles: Int
    /// Blobs this snapshot stored that the repository did not hold.
    var addedBlobs: Int
    /// Bytes of packs this snapshot wrote (sealed blobs, headers).
    var addedBytes: Int64

    init(
        time: Date, host: String, parent: String?, metadata: [String: String], files: [Entry], reusedFiles: Int,
        addedBlobs: Int, addedBytes: Int64
    ) {
        self.time = time
        self.host = host
        self.parent = parent
        self.metadata = metadata
        self.files = files
        fileCount = files.count
        totalSize = files.reduce(0) { $0 &+ $1.file.size }
        self.reusedFiles = reusedFiles
        self.addedBlobs = addedBlobs
        self.addedBytes = addedBytes
    }

    func summary(id: String) -> SnapshotSummary {
        SnapshotSummary(
            id: id, time: time, host: host, parent: parent, metadata: metadata, fileCount: fileCount,
            totalSize: totalSize, reusedFiles: reusedFiles, addedBlobs: addedBlobs, addedBytes: addedBytes)
    }

    /// Reads and checks a snapshot file.
    /// - Parameter headerOnly: Whether to stop after the header (time, host, parent, metadata, counts), leaving
    ///   ``files`` empty: what choosing a parent needs. The default is `false`.
    /// - Throws: ``/StrataCore/StorageError`` naming the file (`path`, and the snapshot as `collection`): `.notFound`,
    ///   `.tooLarge` over ``BackupRepository/maximumMetadataFileSize`` (refused unread), `.corrupt` naming the
    ///   damaged part (`attribute`) and file (`key`), `.authenticationFailed`, `.unsupportedVersion`.
    static func read(
        _ name: String, in folder: DirectoryHandle, keys: RepositoryKeys, headerOnly: Bool = false
    ) throws -> SnapshotManifest {
        let path = folder.path(of: name)
        do {
            guard
                let data = try AtomicFile.read(
                    in: folder, name: name, maximumSize: BackupRepository.maximumMetadataFileSize, followGrowth: false)
            else {
                throw StorageError(
                    .notFound, "no snapshot has this id", key: name, path: path,
                    recovery: "List them with `snapshots`")
            }
            let body = try SealedFile.open(Array(data), kind: .snapshot, name: name, key: keys.seal, path: path)
            return try decode(anyFormat: body, headerOnly: headerOnly, path: path)
        } catch var error as StorageError {
            error.collection = name
            throw error
        }
    }

    /// Decodes and checks the body of a snapshot file (once opened), in either format: format 1 when it starts
    /// with `{`, else format 2.
    /// - Throws: What ``decode(_:headerOnly:path:)`` and ``SnapshotManifestV1/decode(_:path:)`` throw.
    static func decode(anyFormat body: [UInt8], headerOnly: Bool, path: String) throws -> SnapshotManifest {
        if body.first == UInt8(ascii: "{") { return try SnapshotManifestV1.decode(body, path: path) }
        return try decode(body, headerOnly: headerOnly, path: path)
    }

    /// The times a snapshot may have, in seconds since 1970: from 1970 to the end of 9999 (what ISO 8601 dates
    /// print). A time outside (infinite, not a number, before 1970) is damage; a time after the clock's now is
    /// read, and never chosen as a parent (see ``BackupRepository/latest(of:)``).
    static let times: ClosedRange<Double> = 0...253_402_300_799

    /// The time `seconds` after 1970, or `nil` when it is outside ``times``.
    static func checkedTime(_ seconds: Double) -> Date? {
        times.contains(seconds) ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// Writes the snapshot file `name`, durably, in format ``version``.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when its time is outside ``times`` (a clock set
    ///   before 1970), or an I/O error.
    func write(as name: String, in folder: DirectoryHandle, keys: RepositoryKeys) throws {
        guard Self.times.contains(time.timeIntervalSince1970) else {
            throw StorageError(
                .invalidArgument,
                "the snapshot's time, \(time.timeIntervalSince1970) s since 1970, is not from 1970 to 9999",
                path: folder.path(of: name), recovery: "Set the system clock")
        }
        try AtomicFile.write(
            Data(SealedFile.seal(encoded(), kind: .snapshot, name: name, key: keys.seal)), in: folder, name: name)
    }

    /// What every file of a snapshot must meet, whatever its format: a size of at least 0, sizes that add up
    /// without overflow to at most `total`, and no more chunks than bytes (a chunk holds at least one).
    /// - Returns: Why `entry` is refused (completing "the snapshot gives a file …"), or `nil`.
    static func refusal(of entry: Entry, total: inout Int64) -> String? {
        if entry.file.size < 0 { return "a negative size" }
        let (sum, overflow) = total.addingReportingOverflow(entry.file.size)
        if overflow { return "sizes that add up past 2^63 bytes" }
        if Int64(entry.chunks.count) > entry.file.size { return "more chunks (\(entry.chunks.count)) than bytes" }
        total = sum
        return nil
    }

    /// The error of a damaged snapshot file.
    static func damage(_ message: String, part: String, file: String?, path: String) -> StorageError {
        var error = StorageError(
            .corrupt, message, key: file, path: path,
            recovery: "Run `check`; restore the snapshot file from a copy of the repository, or forget it")
        error.attribute = part
        return error
    }
}
