import Foundation
import Strata

// What the backup verbs print with `--json` (the shapes are in Documentation/CLI.md).
extension BackupCommands {
    /// A snapshot as JSON: `{"id", "time", "host", "parent", "fileCount", "totalSize", "reusedFiles", "addedBlobs",
    /// "addedBytes", "damage": null}`, named as ``/StrataBackup/SnapshotSummary`` names them. `files` and `size`
    /// repeat `fileCount` and `totalSize` under their names before issue 36, deprecated (Documentation/CLI.md).
    static func json(_ summary: SnapshotSummary) -> JSONValue {
        let fileCount = JSONValue.integer(Int64(summary.fileCount))
        let totalSize = JSONValue.integer(summary.totalSize)
        return .object([
            "id": .string(summary.id), "time": .string(summary.time.formatted(.iso8601)),
            "host": .string(summary.host), "parent": summary.parent.map { .string($0) } ?? .null,
            "fileCount": fileCount, "files": fileCount, "totalSize": totalSize, "size": totalSize,
            "reusedFiles": .integer(Int64(summary.reusedFiles)), "addedBlobs": .integer(Int64(summary.addedBlobs)),
            "addedBytes": .integer(summary.addedBytes), "damage": .null,
        ])
    }

    /// A snapshot file that cannot be read, as `snapshots` lists it: its `id` and `damage`, every other member
    /// null.
    static func jsonEntry(_ file: DamagedFile) -> JSONValue {
        .object([
            "id": .string(file.name), "time": .null, "host": .null, "parent": .null, "fileCount": .null, "files": .null,
            "totalSize": .null, "size": .null, "reusedFiles": .null, "addedBlobs": .null, "addedBytes": .null,
            "damage": damage(file.error),
        ])
    }

    /// A file left out: `{"kind": "index" or "snapshot", "name", "damage"}`.
    static func json(_ file: DamagedFile) -> JSONValue {
        .object(["kind": .string(file.kind.rawValue), "name": .string(file.name), "damage": damage(file.error)])
    }

    /// Why a file cannot be read: `{"code", "path", "error"}` (`error`: the whole message).
    static func damage(_ error: StorageError) -> JSONValue {
        .object([
            "code": .string(error.code.rawValue), "path": error.path.map { .string($0) } ?? .null,
            "error": .string(error.description),
        ])
    }

    /// What `check --repair` did: `{"packs", "blobs", "indexFilesReplaced", "damaged", "unreadablePacks"}`.
    static func json(_ report: IndexRebuildReport) -> JSONValue {
        .object([
            "packs": .integer(Int64(report.packs)), "blobs": .integer(Int64(report.blobs)),
            "indexFilesReplaced": .integer(Int64(report.indexFilesReplaced)),
            "damaged": .array(report.damaged.map(json)),
            "unreadablePacks": .array(report.unreadablePacks.map(damage)),
        ])
    }
}
