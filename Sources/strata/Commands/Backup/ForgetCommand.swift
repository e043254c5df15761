import Strata

/// `strata forget --repo DIR --keep-… N [--dry-run]`, or `strata forget SNAPSHOT... --repo DIR`: snapshots a
/// retention policy does not keep, or those named, deleted (their data goes at `prune`).
struct ForgetCommand: ToolCommand {
    static let snapshots = Argument(
        list: "SNAPSHOT", "A snapshot's id, or any unique prefix of it (see 'strata snapshots').")
    static let keepLastOption = count("--keep-last", "Keep the N latest snapshots.")
    static let keepDailyOption = count(
        "--keep-daily", "Keep the latest snapshot of each of the N latest days that have one.")
    static let keepWeeklyOption = count(
        "--keep-weekly", "Keep the latest snapshot of each of the N latest weeks that have one.")
    static let keepMonthlyOption = count(
        "--keep-monthly", "Keep the latest snapshot of each of the N latest months that have one.")
    static let dryRunFlag = Flag("--dry-run", "Only list what would be kept and forgotten.")
    static let configuration = CommandConfiguration(
        "forget", summary: "Delete the snapshots a retention policy does not keep (their data goes at prune).",
        usage:
            "forget [SNAPSHOT...] --repo DIR [--keep-last N] [--keep-daily N] [--keep-weekly N] [--keep-monthly N] "
            + "[--dry-run] [--repo-key-file FILE] [--json]",
        details:
            "Either SNAPSHOT ids (a snapshot file that cannot be read too: what removes it) or at least one --keep "
            + "option: forgetting every snapshot is never a default. A policy leaves the snapshot files that cannot "
            + "be read as they are, and lists them; snapshots dated in the future are kept.",
        arguments: [snapshots],
        options: [
            RepositoryAccess.repoOption, keepLastOption, keepDailyOption, keepWeeklyOption, keepMonthlyOption,
            dryRunFlag,
        ] + RepositoryAccess.keyFileOptions + [JSONOutput.option])

    /// A `--keep-…` option: a whole number of snapshots.
    private static func count(_ name: String, _ help: String) -> Option<Int> {
        Option(name, "N", help) { text in
            guard let value = Int(text), value >= 0 else {
                throw UsageError("'\(name)' takes a whole number of snapshots, not '\(text)'")
            }
            return value
        }
    }

    var ids: [String]
    var policy: RetentionPolicy
    var isDryRun: Bool
    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        ids = try arguments.value(Self.snapshots)
        policy = RetentionPolicy(
            keepLast: try arguments.value(Self.keepLastOption) ?? 0,
            keepDaily: try arguments.value(Self.keepDailyOption) ?? 0,
            keepWeekly: try arguments.value(Self.keepWeeklyOption) ?? 0,
            keepMonthly: try arguments.value(Self.keepMonthlyOption) ?? 0)
        isDryRun = arguments.isSet(Self.dryRunFlag)
        let hasPolicy = policy.keepLast + policy.keepDaily + policy.keepWeekly + policy.keepMonthly > 0
        if !ids.isEmpty, hasPolicy || isDryRun {
            throw UsageError("give SNAPSHOT ids or --keep options (with --dry-run), not both")
        }
        if ids.isEmpty, !hasPolicy {
            throw UsageError(
                "give SNAPSHOT ids, or at least one of --keep-last, --keep-daily, --keep-weekly and --keep-monthly")
        }
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        if !ids.isEmpty {
            let forgotten = try repository.open().forget(ids: ids)
            if json { return JSONOutput.print(.object(["forgotten": .array(forgotten.map { .string($0) })])) }
            for id in forgotten { print("forget  \(id.prefix(12))") }
            return print("\(forgotten.count) forgotten; run 'strata prune' to free their data")
        }
        let report = try repository.open().forget(policy, dryRun: isDryRun)
        if json {
            return JSONOutput.print(
                .object([
                    "dryRun": .bool(isDryRun), "kept": .array(report.kept.map(BackupCommands.json)),
                    "forgotten": .array(report.forgotten.map(BackupCommands.json)),
                    "damaged": .array(report.damaged.map(BackupCommands.json)),
                ]))
        }
        for summary in report.kept { print("keep   \(summary.id.prefix(12))  \(summary.time.formatted(.iso8601))") }
        for summary in report.forgotten {
            print(
                "\(isDryRun ? "would forget" : "forget")  \(summary.id.prefix(12))  \(summary.time.formatted(.iso8601))"
            )
        }
        for file in report.damaged { print("leave  \(file.name.prefix(12))  damaged: \(file.error)") }
        print(
            "\(report.kept.count) kept, \(report.forgotten.count) \(isDryRun ? "would be " : "")forgotten"
                + (report.damaged.isEmpty ? "" : ", \(report.damaged.count) damaged left as they are")
                + (isDryRun || report.forgotten.isEmpty ? "" : "; run 'strata prune' to free their data"))
    }
}
