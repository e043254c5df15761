import Foundation
import StrataCore

/// Format 1 of a snapshot's body, JSON, as the first release of the repository wrote it: still read (a repository
/// may hold such snapshots), never written.
struct SnapshotManifestV1: Codable {
    /// One file: its description, attribute values in base64, chunks as 64 hex digits.
    struct Entry: Codable {
        var path: String
        var tier: String?
        var mode: UInt32
        var size: Int64
        var modificationTime: CapturedFile.Timespec
        var extendedAttributes: [String: String]
        var chunks: [String]
    }

    var version: Int
    /// Seconds since 1970.
    var time: Double
    var host: String
    var parent: String?
    var metadata: [String: String]
    var files: [Entry]
    var reusedFiles: Int
    var addedBlobs: Int
    var addedBytes: Int64

    /// Decodes a body of format 1 into the current form, checking what format 2 checks.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` (naming the file at fault as `key`), `.unsupportedVersion`.
    static func decode(_ body: [UInt8], path: String) throws -> SnapshotManifest {
        guard let old = try? JSONDecoder().decode(SnapshotManifestV1.self, from: Data(body)) else {
            throw SnapshotManifest.damage(
                "the snapshot (format 1) does not decode", part: "json", file: nil, path: path)
        }
        guard old.version == 1 else {
            throw StorageError(
                .unsupportedVersion, "the snapshot has format version \(old.version) in JSON; this Strata reads 1",
                path: path)
        }
        // What format 2 cannot hold is refused as it is there: negative counts, nanoseconds outside 0...2^31 - 1.
        guard old.reusedFiles >= 0, old.addedBlobs >= 0, old.addedBytes >= 0 else {
            throw SnapshotManifest.damage(
                "the snapshot gives a negative count of reused files, added blobs or added bytes", part: "counts",
                file: nil, path: path)
        }
        guard let time = SnapshotManifest.checkedTime(old.time) else {
            throw SnapshotManifest.damage(
                "the snapshot's time, \(old.time), is not a time from 1970 to 9999", part: "time", file: nil, path: path
            )
        }
        var files: [SnapshotManifest.Entry] = []
        var total: Int64 = 0
        for entry in old.files {
            let chunks = entry.chunks.compactMap(BlobID.init(hex:))
            var attributes: [String: [UInt8]] = [:]
            for (name, value) in entry.extendedAttributes {
                guard let bytes = Data(base64Encoded: value) else {
                    throw SnapshotManifest.damage(
                        "the snapshot gives a file an attribute that is not base64", part: "extendedAttributes",
                        file: entry.path, path: path)
                }
                attributes[name] = Array(bytes)
            }
            guard entry.modificationTime.nanoseconds >= 0 else {
                throw SnapshotManifest.damage(
                    "the snapshot gives a file negative nanoseconds", part: "modificationTime", file: entry.path,
                    path: path)
            }
            let tier = entry.tier.flatMap(Tier.init(rawValue:))
            guard tier != nil || entry.tier == nil else {
                throw SnapshotManifest.damage(
                    "the snapshot gives a file an unknown tier", part: "tier", file: entry.path, path: path)
            }
            guard chunks.count == entry.chunks.count else {
                throw SnapshotManifest.damage(
                    "the snapshot gives a file a chunk that is not a blob id", part: "chunks", file: entry.path,
                    path: path)
            }
            let converted = SnapshotManifest.Entry(
                CapturedFile(
                    path: entry.path, tier: tier, mode: entry.mode, size: entry.size,
                    modificationTime: entry.modificationTime, extendedAttributes: attributes), chunks: chunks)
            if let why = SnapshotManifest.refusal(of: converted, total: &total) {
                throw SnapshotManifest.damage(
                    "the snapshot gives a file \(why)", part: "size", file: entry.path, path: path)
            }
            files.append(converted)
        }
        return SnapshotManifest(
            time: time, host: old.host, parent: old.parent, metadata: old.metadata,
            files: files, reusedFiles: old.reusedFiles, addedBlobs: old.addedBlobs, addedBytes: old.addedBytes)
    }
}
