import Foundation
import Strata

/// The backup verbs: `strata backup`, `snapshots`, `restore`, `forget`, `prune` and `check`, each on a backup
/// repository (`--repo DIR`, see `Documentation/Backup.md`) opened with `--key-file FILE`, else the passphrase in
/// `STRATA_BACKUP_PASSPHRASE`, else one typed at the terminal. A passphrase is never an argument: it would show in
/// `ps` and the shell's history.
enum BackupCommands {
    static let passphraseVariable = "STRATA_BACKUP_PASSPHRASE"
    static let repoOption = OptionSpec.value("--repo", "DIR", "The backup repository (a folder).")
    static let keyFileOption = OptionSpec.value(
        "--key-file", "FILE",
        "Open the repository with the key in FILE (mode 0600), else STRATA_BACKUP_PASSPHRASE, else the terminal.")
    static let repositoryOptions = [repoOption, keyFileOption]

    static let backup = CommandSpec(
        name: "backup",
        summary: "Back the store at ROOT up into a new snapshot of a backup repository, while it is in use.",
        usage: "backup [ROOT] [--root DIR] --repo DIR [--init] [--key-file FILE] [--read-everything] [--json]",
        options: [
            StoreRoot.option, repoOption,
            .flag("--init", "Make the repository first when DIR is not one yet (a new or empty folder)."),
            keyFileOption,
            .flag("--read-everything", "Read every file, also those the previous snapshot holds unchanged."),
            JSONOutput.option,
        ],
        details:
            "Each tier is captured at one point in time (secrets sealed, as they are); the snapshot is committed "
            + "only once complete. Ctrl-C stops it and commits nothing. With --init and no --key-file, a new "
            + "passphrase is read from STRATA_BACKUP_PASSPHRASE or asked twice at the terminal.")

    static let snapshots = CommandSpec(
        name: "snapshots", summary: "List the snapshots of a backup repository, oldest first.",
        usage: "snapshots --repo DIR [--key-file FILE] [--json]", options: repositoryOptions + [JSONOutput.option])

    static let restore = CommandSpec(
        name: "restore",
        summary: "Restore a snapshot into a new store root, all-or-nothing (or some keys into an existing store).",
        usage:
            "restore SNAPSHOT --repo DIR --root NEW [--records-url URL | --prefix PREFIX | --key KEY] "
            + "[--key-file FILE]",
        options: [
            repoOption, .value("--root", "NEW", "Where the store goes: a new or empty folder."),
            .value(
                "--records-url", "URL",
                "For a store whose records were on PostgreSQL: load them into this postgresql:// URL's schema "
                    + "(strata_schema=NAME; it must be new or empty). Without it they go into NEW's own SQLite store."),
            .value(
                "--prefix", "PREFIX",
                "Restore only the keys starting with PREFIX, into the existing store at --root (its other keys stay)."),
            .value(
                "--key", "KEY",
                "Restore exactly the key KEY (not the keys it is a prefix of), into the existing store at --root."),
            keyFileOption,
        ],
        details:
            "The store is staged beside NEW, verified (every catalogued key read back) and then moved into place: a "
            + "failed or interrupted restore leaves nothing at NEW. Secrets stay sealed; reading them back during "
            + "the check needs STRATA_SECRETS_KEY when the keyring is protected by a key. Records captured from "
            + "PostgreSQL are loaded into the --records-url schema in one transaction, committed just before the "
            + "move: an interrupted restore leaves no rows there.")

    static let forget = CommandSpec(
        name: "forget", summary: "Delete the snapshots a retention policy does not keep (their data goes at prune).",
        usage:
            "forget [SNAPSHOT...] --repo DIR [--keep-last N] [--keep-daily N] [--keep-weekly N] [--keep-monthly N] "
            + "[--dry-run] [--key-file FILE] [--json]",
        options: [
            repoOption, .value("--keep-last", "N", "Keep the N latest snapshots."),
            .value("--keep-daily", "N", "Keep the latest snapshot of each of the N latest days that have one."),
            .value("--keep-weekly", "N", "Keep the latest snapshot of each of the N latest weeks that have one."),
            .value("--keep-monthly", "N", "Keep the latest snapshot of each of the N latest months that have one."),
            .flag("--dry-run", "Only list what would be kept and forgotten."), keyFileOption, JSONOutput.option,
        ],
        details:
            "Either SNAPSHOT ids (a snapshot file that cannot be read too: what removes it) or at least one --keep "
            + "option: forgetting every snapshot is never a default. A policy leaves the snapshot files that cannot "
            + "be read as they are, and lists them; snapshots dated in the future are kept.")

    static let prune = CommandSpec(
        name: "prune", summary: "Remove the data of a backup repository that no snapshot needs.",
        usage: "prune --repo DIR [--key-file FILE] [--json]", options: repositoryOptions + [JSONOutput.option],
        details:
            "It waits for running backups and restores (and they for it); a kill during prune loses nothing. It "
            + "never deletes a file it cannot read or did not write: while a snapshot file cannot be read, it removes "
            + "no data (only blobs stored twice), and says so.")

    static let check = CommandSpec(
        name: "check", summary: "Verify a backup repository without restoring: structure, and data if asked.",
        usage: "check --repo DIR [--repair] [--read-data | --read-data-subset PERCENT] [--key-file FILE] [--json]",
        options: [
            repoOption,
            .flag(
                "--repair",
                "First rebuild the index from the packs' own headers, replacing every index file (a damaged one too)."),
            .flag("--read-data", "Also open every blob of every pack and check it against its id."),
            .value("--read-data-subset", "PERCENT", "Read this share of the packs, chosen at random (10%)."),
            keyFileOption, JSONOutput.option,
        ],
        details:
            "Exit code 1 when anything is damaged; each problem is listed with what it names. --repair waits for "
            + "running backups and restores, and changes nothing but the index files.")

    static let specs = [backup, snapshots, restore, forget, prune, check]

    /// Runs the backup verb named `verb`.
    static func run(_ spec: CommandSpec, _ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        switch spec.name {
        case backup.name: try runBackup(parsed)
        case snapshots.name: try runSnapshots(parsed)
        case restore.name: try runRestore(parsed)
        case forget.name: try runForget(parsed)
        case prune.name: try runPrune(parsed)
        default: try runCheck(parsed)
        }
    }

    /// The repository at `--repo`, opened with ``key(_:creating:)``; with `creating`, made first when the folder is
    /// missing or empty.
    static func repository(_ parsed: ParsedArguments, creating: Bool = false) throws -> BackupRepository {
        guard let path = parsed.value(repoOption.name), !path.isEmpty else {
            throw UsageError("'--repo DIR' is required")
        }
        let isRepository = FileManager.default.fileExists(atPath: path + "/config")
        if creating, !isRepository {
            return try BackupRepository.create(at: path, key: try key(parsed, creating: true))
        }
        return try BackupRepository.open(at: path, key: try key(parsed, creating: false))
    }

    /// The repository key: `--key-file`, else `STRATA_BACKUP_PASSPHRASE`, else the terminal (twice for a new one).
    static func key(_ parsed: ParsedArguments, creating: Bool) throws -> RepositoryKey {
        if let file = parsed.value(keyFileOption.name) { return .keyFile(file) }
        if let value = ProcessInfo.processInfo.environment[passphraseVariable], !value.isEmpty {
            return .passphrase(value)
        }
        let prompt = "Passphrase of the backup repository: "
        return .passphrase(try creating ? Terminal.readNewSecret(prompt: prompt) : Terminal.readSecret(prompt: prompt))
    }

    /// A non-negative count given to `option`, or 0 when it is absent.
    static func count(_ parsed: ParsedArguments, _ option: String) throws -> Int {
        guard let text = parsed.value(option) else { return 0 }
        guard let value = Int(text), value >= 0 else {
            throw UsageError("'\(option)' takes a whole number of snapshots, not '\(text)'")
        }
        return value
    }

    /// `10%` (or `0.1`) as a share between 0 and 1.
    static func share(_ text: String) throws -> Double {
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
}
