import Strata

/// `strata prune --repo DIR`: removes the data no snapshot needs; it waits for running backups and restores.
struct PruneCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "prune", summary: "Remove the data of a backup repository that no snapshot needs.",
        usage: "prune --repo DIR [--repo-key-file FILE] [--json]",
        details:
            "It waits for running backups and restores (and they for it); a kill during prune loses nothing. It "
            + "never deletes a file it cannot read or did not write: while a snapshot file cannot be read, it removes "
            + "no data (only blobs stored twice), and says so.",
        options: RepositoryAccess.options + [JSONOutput.option])

    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let report = try repository.open().prune()
        BackupCommands.warn(about: report.damaged, in: "prune")
        if report.damaged.contains(where: { $0.kind == .snapshot }) {
            CommandLineTool.printError(
                "strata prune: warning: no data was removed but blobs stored twice: what a snapshot file that cannot "
                    + "be read needs is unknown")
        }
        if report.missingBlobs > 0 {
            CommandLineTool.printError(
                "strata prune: warning: \(report.missingBlobs) blobs that snapshots need are in no pack; "
                    + "'strata check' names the snapshots")
        }
        for path in report.foreign {
            CommandLineTool.printError("strata prune: note: not a pack of this repository, left alone: \(path)")
        }
        if json {
            return JSONOutput.print(
                .object([
                    "packsDeleted": .integer(Int64(report.packsDeleted)),
                    "packsWritten": .integer(Int64(report.packsWritten)),
                    "blobsRemoved": .integer(Int64(report.blobsRemoved)), "bytesFreed": .integer(report.bytesFreed),
                    "indexFilesReplaced": .integer(Int64(report.indexFilesReplaced)),
                    "damaged": .array(report.damaged.map(BackupCommands.json)),
                    "missingBlobs": .integer(Int64(report.missingBlobs)),
                    "foreign": .array(report.foreign.map { .string($0) }),
                ]))
        }
        print(
            "\(report.blobsRemoved) blobs removed, \(ProgressReporter.bytes(Int(report.bytesFreed))) freed "
                + "(\(report.packsDeleted) packs deleted, \(report.packsWritten) written)")
    }
}
