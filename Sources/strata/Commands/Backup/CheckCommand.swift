import Strata

/// `strata check --repo DIR [--repair] [--read-data | --read-data-subset P]`: the repository verified without
/// restoring; exit 1 when anything is damaged.
struct CheckCommand: ToolCommand {
    static let repairFlag = Flag(
        "--repair",
        "First rebuild the index from the packs' own headers, replacing every index file (a damaged one too).")
    static let readDataFlag = Flag("--read-data", "Also open every blob of every pack and check it against its id.")
    static let readDataSubsetOption = Option(
        "--read-data-subset", "PERCENT", "Read this share of the packs, chosen at random (10%).", read: share)
    static let configuration = CommandConfiguration(
        "check", summary: "Verify a backup repository without restoring: structure, and data if asked.",
        usage: "check --repo DIR [--repair] [--read-data | --read-data-subset PERCENT] [--repo-key-file FILE] [--json]",
        details:
            "Exit code 1 when anything is damaged; each problem is listed with what it names. --repair waits for "
            + "running backups and restores, and changes nothing but the index files.",
        options: [RepositoryAccess.repoOption, repairFlag, readDataFlag, readDataSubsetOption]
            + RepositoryAccess.keyFileOptions + [JSONOutput.option])

    /// `10%` (or `0.1`) as a share between 0 and 1.
    @Sendable static func share(_ text: String) throws -> Double {
        let isPercent = text.hasSuffix("%")
        guard let number = Double(isPercent ? String(text.dropLast()) : text), number.isFinite else {
            throw UsageError("'--read-data-subset' takes a percentage such as 10%, not '\(text)'")
        }
        let value = isPercent ? number / 100 : number
        guard value > 0, value <= 1 else {
            throw UsageError("'--read-data-subset' must be more than 0% and at most 100%, not '\(text)'")
        }
        return value
    }

    var repairs: Bool
    var read: CheckReport.DataRead
    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        repairs = arguments.isSet(Self.repairFlag)
        let subset = try arguments.value(Self.readDataSubsetOption)
        let readsAll = arguments.isSet(Self.readDataFlag)
        guard subset == nil || !readsAll else {
            throw UsageError("give either --read-data or --read-data-subset, not both")
        }
        read = subset.map { .fraction($0) } ?? (readsAll ? .all : .none)
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let repository = try repository.open()
        let repair = repairs ? try repository.rebuildIndex() : nil
        let report = try repository.check(readData: read)
        if json {
            var members: [ExactString: JSONValue] = [
                "ok": .bool(report.isSound), "snapshots": .integer(Int64(report.snapshots)),
                "packs": .integer(Int64(report.packs)), "blobsRead": .integer(Int64(report.blobsRead)),
                "unindexedPacks": .integer(Int64(report.unindexedPacks)),
                "problems": .array(report.problems.map { .string($0.description) }),
                "foreign": .array(report.foreign.map { .string($0) }),
            ]
            if let repair { members["repair"] = BackupCommands.json(repair) }
            JSONOutput.print(.object(members))
        } else {
            if let repair {
                print(
                    "index rebuilt from the packs: \(repair.packs) packs, \(repair.blobs) blobs; "
                        + "\(repair.indexFilesReplaced) index files replaced (\(repair.damaged.count) damaged)")
                for error in repair.unreadablePacks {
                    print("pack left out of the index: \(error.description.escapedForDisplay)")
                }
            }
            print(
                "\(report.snapshots) snapshots, \(report.packs) packs, \(report.blobsRead) blobs read: "
                    + (report.isSound ? "no problems" : "\(report.problems.count) problems"))
            for problem in report.problems { print("problem: \(problem.description.escapedForDisplay)") }
            for path in report.foreign {
                print("not the repository's (left alone): \(path.escapedForDisplay)")
            }
        }
        if !report.isSound { throw CommandFailure("the repository is damaged (\(report.problems.count) problems)") }
    }
}
