import Foundation
import StrataCore

/// The content of a snapshot file of `snapshots/`: a ``SealedFile`` of kind 3, named by the snapshot id, holding
/// this as JSON.
struct SnapshotManifest: Codable, Sendable {
    /// One file of the snapshot: its description and its chunks in order.
    struct Entry: Codable, Sendable {
        var path: String
        var tier: String?
        var mode: UInt32
        var size: Int64
        var modificationTime: CapturedFile.Timespec
        /// Extended attributes, values in base64.
        var extendedAttributes: [String: String]
        /// Blob ids (hex), in order; their plaintexts concatenated are the content.
        var chunks: [String]

        init(_ file: CapturedFile) {
            path = file.path
            tier = file.tier?.rawValue
            mode = file.mode
            size = file.size
            modificationTime = file.modificationTime
            extendedAttributes = file.extendedAttributes.mapValues { Data($0).base64EncodedString() }
            chunks = []
        }

        var file: CapturedFile {
            CapturedFile(
                path: path, tier: tier.flatMap(Tier.init(rawValue:)), mode: mode, size: size,
                modificationTime: modificationTime,
                extendedAttributes: extendedAttributes.compactMapValues { Data(base64Encoded: $0).map(Array.init) })
        }

        /// Whether `file` may reuse this entry's chunks without being read: the same path (exactly), tier, size
        /// and modification time.
        func matches(_ file: CapturedFile) -> Bool {
            ExactString(path) == ExactString(file.path) && tier == file.tier?.rawValue && size == file.size
                && modificationTime == file.modificationTime
        }
    }

    /// The format version of the JSON (1).
    var version: Int
    var time: Date
    var host: String
    var parent: String?
    var metadata: [String: String]
    var files: [Entry]
    /// Files whose chunks came from the parent unread.
    var reusedFiles: Int
    /// Blobs this snapshot stored that the repository did not hold.
    var addedBlobs: Int
    /// Bytes of packs this snapshot wrote (sealed blobs, headers).
    var addedBytes: Int64

    func summary(id: String) -> SnapshotSummary {
        SnapshotSummary(
            id: id, time: time, host: host, parent: parent, metadata: metadata, fileCount: files.count,
            totalSize: files.reduce(0) { $0 + $1.size }, reusedFiles: reusedFiles, addedBlobs: addedBlobs,
            addedBytes: addedBytes)
    }

    /// Reads and checks a snapshot file.
    /// - Throws: ``StorageError`` naming the file (`path`, and the snapshot as `collection`): `.notFound`,
    ///   `.tooLarge` over ``BackupRepository/maximumMetadataFileSize`` (refused unread), `.corrupt` (see
    ///   ``check(path:)``), `.authenticationFailed`, `.unsupportedVersion`.
    static func read(_ name: String, in folder: DirectoryHandle, keys: RepositoryKeys) throws -> SnapshotManifest {
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
            guard let manifest = try? JSONDecoder.snapshots.decode(SnapshotManifest.self, from: Data(body)) else {
                throw StorageError(.corrupt, "the snapshot does not decode", path: path)
            }
            guard manifest.version == 1 else {
                throw StorageError(
                    .unsupportedVersion, "the snapshot has format version \(manifest.version); this Strata reads 1",
                    path: path)
            }
            try manifest.check(path: path)
            return manifest
        } catch var error as StorageError {
            error.collection = name
            throw error
        }
    }

    /// Checks what the rest of the code relies on: each file's size is not negative and all of them add up without
    /// overflow, every chunk is a blob id, and a file has no more chunks than
    /// bytes (a chunk holds at least one) — so a damaged or hostile snapshot is refused before anything is read
    /// or written by it.
    /// - Throws: ``StorageError`` `.corrupt` naming the snapshot file (`path`) and the file (`key`).
    func check(path: String) throws {
        var total: Int64 = 0
        for entry in files {
            let why: String? =
                if entry.size < 0 { "a negative size" } else if total.addingReportingOverflow(entry.size).overflow {
                    "sizes that add up past 2^63 bytes"
                } else if Int64(entry.chunks.count) > entry.size {
                    "more chunks (\(entry.chunks.count)) than bytes"
                } else if entry.chunks.contains(where: { BlobID(hex: $0) == nil }) {
                    "a chunk that is not a blob id"
                } else { nil }
            if let why {
                throw StorageError(
                    .corrupt, "the snapshot gives a file \(why)", key: entry.path, path: path,
                    recovery: "Run `check`; restore the snapshot file from a copy of the repository, or forget it")
            }
            total += entry.size
        }
    }

    func write(as name: String, in folder: DirectoryHandle, keys: RepositoryKeys) throws {
        let body = Array(try JSONEncoder.snapshots.encode(self))
        try AtomicFile.write(
            Data(SealedFile.seal(body, kind: .snapshot, name: name, key: keys.seal)), in: folder, name: name)
    }
}

extension JSONEncoder {
    /// Dates as ISO 8601 with fractions.
    static var snapshots: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.timeIntervalSince1970)
        }
        return encoder
    }
}

extension JSONDecoder {
    static var snapshots: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            Date(timeIntervalSince1970: try decoder.singleValueContainer().decode(Double.self))
        }
        return decoder
    }
}
