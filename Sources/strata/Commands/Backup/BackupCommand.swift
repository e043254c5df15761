import Strata

/// `strata backup ROOT --repo DIR`: the store captured into a new snapshot while it is in use, with progress;
/// Ctrl-C stops it and commits nothing (its temporary pack is removed).
struct BackupCommand: ToolCommand {
    static let initFlag = Flag("--init", "Make the repository first when DIR is not one yet (a new or empty folder).")
    static let readEverythingFlag = Flag(
        "--read-everything", "Read every file, also those the previous snapshot holds unchanged.")
    static let configuration = CommandConfiguration(
        "backup", summary: "Back the store at ROOT up into a new snapshot of a backup repository, while it is in use.",
        usage: "backup [ROOT] [--root DIR] --repo DIR [--init] [--repo-key-file FILE] [--read-everything] [--json]",
        details:
            "Each tier is captured at one point in time (secrets sealed, as they are); the snapshot is committed "
            + "only once complete. Ctrl-C stops it and commits nothing. With --init and no --repo-key-file, a new "
            + "passphrase is read from STRATA_BACKUP_PASSPHRASE or asked twice at the terminal.",
        arguments: [StoreRoot.positional],
        options: [
            StoreRoot.option, RepositoryAccess.repoOption, initFlag,
        ] + RepositoryAccess.keyFileOptions + [readEverythingFlag, JSONOutput.option])

    var root: StoreRoot
    var repository: RepositoryAccess
    var initializes: Bool
    var readsEverything: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        root = try StoreRoot(parsing: &arguments, positional: StoreRoot.positional)
        repository = try RepositoryAccess(parsing: &arguments)
        initializes = arguments.isSet(Self.initFlag)
        readsEverything = arguments.isSet(Self.readEverythingFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let paths = try root.paths(for: .read)
        let storage = try Storage(root: paths.root)
        let repository = try repository.open(creating: initializes)
        let progress = ProgressReporter("backup")
        let (backup, damaged) = try Interruption.trapping("backup", progress) {
            let writer = try repository.beginSnapshot(readsEverything: readsEverything)
            let sink = BackupProgressSink(
                writer, progress: progress, total: BackupProgressSink.estimatedSize(of: paths.root),
                isCancelled: { Interruption.isRequested })
            let backup = try storage.backup(into: writer, through: sink)
            sink.finish()
            return (backup, writer.damaged)
        }
        BackupCommands.warn(about: damaged, in: "backup")
        let summary = backup.snapshot
        let missing = backup.capture.missingKeys
        if json {
            guard case .object(var members) = BackupCommands.json(summary) else { return }
            members["omissions"] = .array(backup.capture.omissions.map { .string($0.description) })
            members["missing"] = .integer(Int64(missing.count))
            members["missingKeys"] = .array(missing.map { .string($0) })
            members["damaged"] = .array(damaged.map(BackupCommands.json))
            return JSONOutput.print(.object(members))
        }
        print(
            "snapshot \(summary.id.prefix(12)) saved: \(summary.fileCount) files, "
                + "\(ProgressReporter.bytes(Int(summary.totalSize))); \(summary.reusedFiles) unchanged, "
                + "\(ProgressReporter.bytes(Int(summary.addedBytes))) written"
                + (missing.isEmpty ? "" : "; \(missing.count) missing"))
        for omission in backup.capture.omissions {
            print(omission.description)
        }
        for key in missing {
            print("missing: \(key.escapedForDisplay): the catalog names it and no tier holds it; left out")
        }
    }
}
