import Strata

/// `strata restore SNAPSHOT --repo DIR --root NEW`: a snapshot into a new store root, all or nothing; with
/// `--prefix` or `--key`, some keys into an existing store.
struct RestoreCommand: ToolCommand {
    static let snapshot = Argument("SNAPSHOT", "A snapshot's id, or any unique prefix of it (see 'strata snapshots').")
    static let rootOption = Option(
        "--root", "NEW", "Where the store goes: a new or empty folder.", completion: .path)
    static let recordsURLOption = Option(
        "--records-url", "URL",
        "For a store whose records were on PostgreSQL: load them into this postgresql:// URL's schema "
            + "(strata_schema=NAME; it must be new or empty). Without it they go into NEW's own SQLite store.")
    static let sharedFlag = Flag(
        "--shared",
        "Into a new shared store: NEW holds only the strata.conf that 'strata init NEW --shared …' wrote; every tier "
            + "goes into its PostgreSQL schema and S3 prefix, which must be new or empty. Documentation/Shared.md.")
    static let prefixOption = Option(
        "--prefix", "PREFIX",
        "Restore only the keys starting with PREFIX, into the existing store at --root (its other keys stay).")
    static let keyOption = Option(
        "--key", "KEY",
        "Restore exactly the key KEY (not the keys it is a prefix of), into the existing store at --root.")
    static let configuration = CommandConfiguration(
        "restore",
        summary: "Restore a snapshot into a new store root, all-or-nothing (or some keys into an existing store).",
        usage:
            "restore SNAPSHOT --repo DIR --root NEW [--records-url URL | --shared | --prefix PREFIX | --key KEY] "
            + "[--repo-key-file FILE] [--secrets-key-file FILE] [--json]",
        details:
            "The store is staged beside NEW, verified (every catalogued key read back) and then moved into place: a "
            + "failed or interrupted restore leaves nothing at NEW. Secrets stay sealed; the check reads them back "
            + "with the keyring's key (--secrets-key-file, else STRATA_SECRETS_KEY), else checks they are there. "
            + "--key-file is not taken: it would not say which of the two keys it is. Records captured from "
            + "PostgreSQL are loaded into the --records-url schema in one transaction, committed just before the "
            + "move: an interrupted restore leaves no rows there. With --shared the store is loaded onto the servers "
            + "its strata.conf names, checked there key by key; a failed restore drops what it wrote.",
        arguments: [snapshot],
        options: [
            RepositoryAccess.repoOption, rootOption, recordsURLOption, sharedFlag, prefixOption, keyOption,
            RepositoryAccess.repoKeyFileOption, SecretsAccess.secretsKeyFileOption,
            RepositoryAccess.ambiguousKeyFileOption, JSONOutput.option,
        ])

    /// What is restored, and where.
    enum Target {
        /// The whole snapshot, as a new store, its records on PostgreSQL when given a URL.
        case store(recordsURL: String?)
        /// The whole snapshot, as a new shared store (declared in NEW's `strata.conf`).
        case shared
        /// The keys that start with a prefix, into the existing store.
        case prefix(String)
        /// Exactly one key, into the existing store.
        case key(String)
    }

    var snapshot: String
    var root: String
    var target: Target
    var repository: RepositoryAccess
    /// `--secrets-key-file`: what unlocks the restored keyring so its items are read back, if given.
    var secretsKeyFile: String?
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        snapshot = try arguments.value(Self.snapshot)
        guard let root = try arguments.value(Self.rootOption), !root.isEmpty else {
            throw UsageError("'--root NEW' is required: the folder the store is restored into")
        }
        self.root = root
        let recordsURL = try arguments.value(Self.recordsURLOption)
        let prefix = try arguments.value(Self.prefixOption)
        let key = try arguments.value(Self.keyOption)
        let shared = arguments.isSet(Self.sharedFlag)
        let chosen = [
            ("--records-url", recordsURL), ("--shared", shared ? "" : nil), ("--prefix", prefix), ("--key", key),
        ].filter { $0.1 != nil }
        guard chosen.count <= 1 else {
            throw UsageError(
                "give one of --records-url, --shared, --prefix and --key, not "
                    + chosen.map(\.0).joined(separator: " and "))
        }
        target =
            key.map { .key($0) } ?? prefix.map { .prefix($0) } ?? (shared ? .shared : .store(recordsURL: recordsURL))
        repository = try RepositoryAccess(parsing: &arguments, opensOtherKeys: true)
        secretsKeyFile = try arguments.value(SecretsAccess.secretsKeyFileOption)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let repository = try repository.open()
        switch target {
        case .key(let key):
            let storage = try Storage(root: try StoreRoot(option: root).paths(for: .read).root, secretsKey: secretsKey)
            let reader = try repository.snapshot(snapshot)
            defer { reader.close() }
            try Interruption.trapping("restore") { try storage.restore(key: key, from: reader, secretsKey: secretsKey) }
            if json { return JSONOutput.print(restoredKeys([key])) }
            print("restored \(key.escapedForDisplay)")
        case .prefix(let prefix):
            let storage = try Storage(root: try StoreRoot(option: root).paths(for: .read).root, secretsKey: secretsKey)
            let reader = try repository.snapshot(snapshot)
            defer { reader.close() }
            let keys = try Interruption.trapping("restore") {
                try storage.restore(keysWithPrefix: prefix, from: reader, secretsKey: secretsKey)
            }
            if json { return JSONOutput.print(restoredKeys(keys)) }
            for key in keys { print("restored \(key.escapedForDisplay)") }
            print("\(keys.count) keys restored")
        case .store(let recordsURL):
            try printReport(
                Interruption.trapping("restore") {
                    try Storage.restore(
                        snapshot: snapshot, from: repository, to: root, secretsKey: secretsKey,
                        records: recordsURL.map { .postgres(url: $0) } ?? .sqlite)
                })
        case .shared:
            let paths = try? StoragePaths(root: root, create: false)
            guard let configuration = try paths.flatMap(StoreConfiguration.read(from:)), configuration.catalog.isShared
            else {
                throw UsageError(
                    "--shared restores into a store declared shared: run 'strata init \(root) --shared "
                        + "--records-url-variable NAME --files-url s3://bucket/prefix' first")
            }
            let reader = try repository.snapshot(snapshot)
            defer { reader.close() }
            try printReport(
                Interruption.trapping("restore") {
                    try Storage.restore(
                        from: reader, toShared: root, configuration: configuration, secretsKey: secretsKey)
                })
        }
    }

    /// What unlocks the restored keyring: `--secrets-key-file`, else (`nil`) `STRATA_SECRETS_KEY` as `Storage` reads it.
    private var secretsKey: KeyProvider? { secretsKeyFile.map { .keyFile($0) } }

    /// What `--key` and `--prefix` print with `--json`: `{"root", "snapshot", "restoredKeys": [String]}`.
    private func restoredKeys(_ keys: [String]) -> JSONValue {
        .object([
            "root": .string(root), "snapshot": .string(snapshot), "restoredKeys": .array(keys.map { .string($0) }),
        ])
    }

    /// Prints what a restore of the whole snapshot did.
    private func printReport(_ report: RestoreReport) {
        if json {
            return JSONOutput.print(
                .object([
                    "root": .string(root), "snapshot": .string(snapshot),
                    "fileCount": .integer(Int64(report.fileCount)),
                    "verifiedKeys": .integer(Int64(report.verifiedKeys)),
                    "uncheckedKeys": .array(report.uncheckedKeys.map { .string($0) }),
                    "missingKeys": .array(report.missingKeys.map { .string($0) }),
                    "omissions": .array(report.omissions.map { .string($0.description) }),
                ]))
        }
        var line =
            "restored \(report.fileCount) files into \(root.escapedForDisplay); \(report.verifiedKeys) keys read back"
        if !report.uncheckedKeys.isEmpty {
            line +=
                ", \(report.uncheckedKeys.count) secrets present but not read (no --secrets-key-file or "
                + "STRATA_SECRETS_KEY)"
        }
        if !report.missingKeys.isEmpty { line += "; \(report.missingKeys.count) missing" }
        print(line)
        for key in report.missingKeys {
            print("missing: \(key.escapedForDisplay): the snapshot's catalog names it and holds no value; left out")
        }
    }
}
