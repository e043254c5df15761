import Foundation
import Strata

// What each backup verb does once its arguments are parsed.
extension BackupCommands {
    /// `strata backup ROOT --repo DIR` (or `--root`, or `STRATA_ROOT`): the store captured into a new snapshot, with
    /// progress, stopped cleanly by Ctrl-C (the snapshot is abandoned: nothing is committed, its temporary pack
    /// removed).
    static func runBackup(_ parsed: ParsedArguments) throws {
        let paths = try StoreRoot.paths(parsed, for: .read, positional: try parsed.optionalPositional("ROOT"))
        let storage = try Storage(root: paths.root)
        let repository = try self.repository(parsed, creating: parsed.has("--init"))
        let progress = ProgressReporter("backup")
        let (backup, damaged) = try Interruption.trapping("backup", progress) {
            let writer = try repository.beginSnapshot(readsEverything: parsed.has("--read-everything"))
            let sink = BackupProgressSink(
                writer, progress: progress, total: BackupProgressSink.estimatedSize(of: paths.root),
                isCancelled: { Interruption.isRequested })
            let backup = try storage.backup(into: writer, through: sink)
            sink.finish()
            return (backup, writer.damaged)
        }
        warn(about: damaged, in: "backup")
        let summary = backup.snapshot
        let missing = backup.capture.missingKeys
        if parsed.has(JSONOutput.option.name) {
            guard case .object(var members) = json(summary) else { return }
            members["omissions"] = .array(backup.capture.omissions.map { .string($0.description) })
            members["missing"] = .integer(Int64(missing.count))
            members["missingKeys"] = .array(missing.map { .string($0) })
            members["damaged"] = .array(damaged.map(json))
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

    /// Says on standard error which metadata files `verb` left out because they cannot be read, and what repairs
    /// them.
    static func warn(about damaged: [DamagedFile], in verb: String) {
        for file in damaged {
            CommandLineTool.printError("strata \(verb): warning: \(file)")
        }
        if damaged.contains(where: { $0.kind == .index }) {
            CommandLineTool.printError(
                "strata \(verb): note: 'strata check --repair' rebuilds the index from the packs")
        }
        if damaged.contains(where: { $0.kind == .snapshot }) {
            CommandLineTool.printError(
                "strata \(verb): note: put a damaged snapshot file back from a copy of the repository, or remove it "
                    + "with 'strata forget ID'")
        }
    }

    /// `strata snapshots --repo DIR`: one line (or JSON object) per snapshot, oldest first, then the snapshot files
    /// that cannot be read (in JSON, objects whose `damage` is not null).
    static func runSnapshots(_ parsed: ParsedArguments) throws {
        _ = try parsed.positionals(0, "")
        let list = try repository(parsed).snapshots()
        if parsed.has(JSONOutput.option.name) {
            return JSONOutput.print(.array(list.map(json) + list.damaged.map(jsonEntry)))
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

    /// `strata restore SNAPSHOT --repo DIR --root NEW [--records-url URL | --prefix P | --key K]`.
    static func runRestore(_ parsed: ParsedArguments) throws {
        let id = try parsed.positionals(1, "SNAPSHOT")[0]
        guard let root = parsed.value("--root"), !root.isEmpty else {
            throw UsageError("'--root NEW' is required: the folder the store is restored into")
        }
        let chosen = ["--records-url", "--prefix", "--key"].filter { parsed.value($0) != nil }
        guard chosen.count <= 1 else {
            throw UsageError("give one of --records-url, --prefix and --key, not \(chosen.joined(separator: " and "))")
        }
        let repository = try self.repository(parsed)
        if let key = parsed.value("--key") {
            let storage = try Storage(root: try StoreRoot.paths(parsed, for: .read).root)
            let reader = try repository.snapshot(id)
            defer { reader.close() }
            try Interruption.trapping("restore") { try storage.restore(key: key, from: reader) }
            return print("restored \(key.escapedForDisplay)")
        }
        if let prefix = parsed.value("--prefix") {
            let storage = try Storage(root: try StoreRoot.paths(parsed, for: .read).root)
            let reader = try repository.snapshot(id)
            defer { reader.close() }
            let keys = try Interruption.trapping("restore") {
                try storage.restore(keysWithPrefix: prefix, from: reader)
            }
            for key in keys { print("restored \(key.escapedForDisplay)") }
            return print("\(keys.count) keys restored")
        }
        let report = try Interruption.trapping("restore") {
            try Storage.restore(
                snapshot: id, from: repository, to: root,
                records: parsed.value("--records-url").map { .postgres(url: $0) } ?? .sqlite)
        }
        var line =
            "restored \(report.fileCount) files into \(root.escapedForDisplay); \(report.verifiedKeys) keys read back"
        if !report.uncheckedKeys.isEmpty {
            line += ", \(report.uncheckedKeys.count) secrets present but not read (no STRATA_SECRETS_KEY)"
        }
        if !report.missingKeys.isEmpty { line += "; \(report.missingKeys.count) missing" }
        print(line)
        for key in report.missingKeys {
            print("missing: \(key.escapedForDisplay): the snapshot's catalog names it and holds no value; left out")
        }
    }

    /// `strata forget --repo DIR --keep-… N [--dry-run]`, or `strata forget SNAPSHOT... --repo DIR`.
    static func runForget(_ parsed: ParsedArguments) throws {
        let policy = RetentionPolicy(
            keepLast: try count(parsed, "--keep-last"), keepDaily: try count(parsed, "--keep-daily"),
            keepWeekly: try count(parsed, "--keep-weekly"), keepMonthly: try count(parsed, "--keep-monthly"))
        let hasPolicy = policy.keepLast + policy.keepDaily + policy.keepWeekly + policy.keepMonthly > 0
        let isDryRun = parsed.has("--dry-run")
        if !parsed.positionals.isEmpty {
            guard !hasPolicy, !isDryRun else {
                throw UsageError("give SNAPSHOT ids or --keep options (with --dry-run), not both")
            }
            let forgotten = try repository(parsed).forget(ids: parsed.positionals)
            if parsed.has(JSONOutput.option.name) {
                return JSONOutput.print(.object(["forgotten": .array(forgotten.map { .string($0) })]))
            }
            for id in forgotten { print("forget  \(id.prefix(12))") }
            return print("\(forgotten.count) forgotten; run 'strata prune' to free their data")
        }
        guard hasPolicy else {
            throw UsageError(
                "give SNAPSHOT ids, or at least one of --keep-last, --keep-daily, --keep-weekly and --keep-monthly")
        }
        let report = try repository(parsed).forget(policy, dryRun: isDryRun)
        if parsed.has(JSONOutput.option.name) {
            return JSONOutput.print(
                .object([
                    "dryRun": .bool(isDryRun), "kept": .array(report.kept.map(json)),
                    "forgotten": .array(report.forgotten.map(json)), "damaged": .array(report.damaged.map(json)),
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

    /// `strata prune --repo DIR`.
    static func runPrune(_ parsed: ParsedArguments) throws {
        _ = try parsed.positionals(0, "")
        let report = try repository(parsed).prune()
        warn(about: report.damaged, in: "prune")
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
        if parsed.has(JSONOutput.option.name) {
            return JSONOutput.print(
                .object([
                    "packsDeleted": .integer(Int64(report.packsDeleted)),
                    "packsWritten": .integer(Int64(report.packsWritten)),
                    "blobsRemoved": .integer(Int64(report.blobsRemoved)), "bytesFreed": .integer(report.bytesFreed),
                    "indexFilesReplaced": .integer(Int64(report.indexFilesReplaced)),
                    "damaged": .array(report.damaged.map(json)), "missingBlobs": .integer(Int64(report.missingBlobs)),
                    "foreign": .array(report.foreign.map { .string($0) }),
                ]))
        }
        print(
            "\(report.blobsRemoved) blobs removed, \(ProgressReporter.bytes(Int(report.bytesFreed))) freed "
                + "(\(report.packsDeleted) packs deleted, \(report.packsWritten) written)")
    }

    /// `strata check --repo DIR [--repair] [--read-data | --read-data-subset P]`: exit code 1 when anything is
    /// damaged.
    static func runCheck(_ parsed: ParsedArguments) throws {
        _ = try parsed.positionals(0, "")
        var read = CheckReport.DataRead.none
        if let subset = parsed.value("--read-data-subset") {
            guard !parsed.has("--read-data") else {
                throw UsageError("give either --read-data or --read-data-subset, not both")
            }
            read = .fraction(try share(subset))
        } else if parsed.has("--read-data") {
            read = .all
        }
        let repository = try repository(parsed)
        let repair = parsed.has("--repair") ? try repository.rebuildIndex() : nil
        let report = try repository.check(readData: read)
        if parsed.has(JSONOutput.option.name) {
            var members: [ExactString: JSONValue] = [
                "ok": .bool(report.isSound), "snapshots": .integer(Int64(report.snapshots)),
                "packs": .integer(Int64(report.packs)), "blobsRead": .integer(Int64(report.blobsRead)),
                "unindexedPacks": .integer(Int64(report.unindexedPacks)),
                "problems": .array(report.problems.map { .string($0.description) }),
                "foreign": .array(report.foreign.map { .string($0) }),
            ]
            if let repair { members["repair"] = json(repair) }
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

    /// A snapshot as JSON: `{"id", "time", "host", "parent", "files", "size", "reusedFiles", "addedBlobs",
    /// "addedBytes", "damage": null}`.
    static func json(_ summary: SnapshotSummary) -> JSONValue {
        .object([
            "id": .string(summary.id), "time": .string(summary.time.formatted(.iso8601)),
            "host": .string(summary.host), "parent": summary.parent.map { .string($0) } ?? .null,
            "files": .integer(Int64(summary.fileCount)), "size": .integer(summary.totalSize),
            "reusedFiles": .integer(Int64(summary.reusedFiles)), "addedBlobs": .integer(Int64(summary.addedBlobs)),
            "addedBytes": .integer(summary.addedBytes), "damage": .null,
        ])
    }

    /// A snapshot file that cannot be read, as `snapshots` lists it: its `id` and `damage`, every other member
    /// null.
    static func jsonEntry(_ file: DamagedFile) -> JSONValue {
        .object([
            "id": .string(file.name), "time": .null, "host": .null, "parent": .null, "files": .null, "size": .null,
            "reusedFiles": .null, "addedBlobs": .null, "addedBytes": .null, "damage": damage(file.error),
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

extension String {
    fileprivate func padding(_ width: Int) -> String {
        padding(toLength: max(width, count), withPad: " ", startingAt: 0)
    }
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
