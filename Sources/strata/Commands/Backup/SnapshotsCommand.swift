import Foundation
import Strata

/// `strata snapshots --repo DIR`: one line (or JSON object) per snapshot, oldest first, then the snapshot files
/// that cannot be read (in JSON, objects whose `damage` is not null).
struct SnapshotsCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "snapshots", summary: "List the snapshots of a backup repository, oldest first.",
        usage: "snapshots --repo DIR [--repo-key-file FILE] [--json]",
        options: RepositoryAccess.options + [JSONOutput.option])

    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let list = try repository.open().snapshots()
        if json {
            return JSONOutput.print(.array(list.map(BackupCommands.json) + list.damaged.map(BackupCommands.jsonEntry)))
        }
        if list.isEmpty, list.damaged.isEmpty { print("no snapshots") }
        if !list.isEmpty {
            print("ID            TIME                  HOST             FILES        SIZE  CHANGED       WRITTEN")
        }
        for summary in list {
            let changed = summary.fileCount - summary.reusedFiles
            print(
                [
                    String(summary.id.prefix(12)), summary.time.formatted(.iso8601).padding(20),
                    summary.host.escapedForDisplay.padding(16), String(summary.fileCount).leftPadded(5),
                    ProgressReporter.bytes(Int(summary.totalSize)).leftPadded(11),
                    "\(changed) files".leftPadded(7), ProgressReporter.bytes(Int(summary.addedBytes)).leftPadded(13),
                ].joined(separator: "  "))
        }
        for file in list.damaged {
            print("\(file.name.prefix(12))  damaged, left out: \(file.error)")
        }
        for path in list.foreign {
            print("not a snapshot (left alone): \(path.escapedForDisplay)")
        }
        if !list.damaged.isEmpty {
            print(
                "\(list.damaged.count) snapshot file(s) cannot be read: put them back from a copy of the repository, "
                    + "or remove them with 'strata forget ID'")
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        padding(toLength: max(width, count), withPad: " ", startingAt: 0)
    }
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
