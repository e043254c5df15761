import Foundation
import Strata

/// `strata migrate ROOT --to-shared SHARED`: every key of a one-machine store copied into a shared store, in the same
/// tiers, resumable, then read back and compared.
struct MigrateCommand: ToolCommand {
    static let sharedOption = Option(
        "--to-shared", "SHARED",
        "The shared store's root (made with 'strata init SHARED --shared ...'), which the keys are copied into.",
        completion: .path)
    static let overwriteFlag = Flag(
        "--overwrite", "Replace a key the shared store holds with other bytes (by default it is a conflict, left).")
    static let configuration = CommandConfiguration(
        "migrate", summary: "Copy a one-machine store into a shared store, key by key, resumable and verified.",
        usage:
            "migrate [ROOT] [--root DIR] --to-shared SHARED [--overwrite] [--secrets-key-file FILE | --passphrase-file "
            + "FILE] [--json]",
        details:
            "Each key of ROOT goes into SHARED in the tier ROOT keeps it in (preferences into the shared suite, "
            + "credentials into the shared keyring, records and files on their servers), written whole under the "
            + "key's lock before the next: an interrupted migration is run again, and skips the keys already "
            + "copied. A key SHARED holds otherwise (other bytes, another tier) is a conflict, left as it is (exit 1) "
            + "unless --overwrite. At the end every key is read back from SHARED and compared with what was copied. "
            + "What ROOT keeps outside its keys (record collections, other suites and keyrings, keyring items of other "
            + "services) is named, not copied (exit 1). Remove ROOT only once a run exits 0. Both keyrings are "
            + "unlocked with the same key "
            + "(--secrets-key-file, --passphrase-file, else STRATA_SECRETS_KEY).",
        arguments: [StoreRoot.positional],
        options: [StoreRoot.option, sharedOption, overwriteFlag] + StorageAccess.keyOptions + [JSONOutput.option])

    var source: StorageAccess
    var shared: String
    var overwrites: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        let root = try StoreRoot(parsing: &arguments, positional: StoreRoot.positional)
        source = try StorageAccess(parsing: &arguments)
        source.root = root
        guard let shared = try arguments.value(Self.sharedOption), !shared.isEmpty else {
            throw UsageError("'--to-shared SHARED' is required: the shared store's root")
        }
        self.shared = shared
        overwrites = arguments.isSet(Self.overwriteFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        // The target first: nothing is opened (or settled) in ROOT for a target that is not a shared store.
        var target = source
        target.root = StoreRoot(option: shared)
        guard try StoreConfiguration.read(from: target.root.paths(for: .read))?.catalog.isShared == true else {
            throw UsageError(
                "\(shared) is not a shared store: make it with 'strata init \(shared) --shared --records-url-variable "
                    + "NAME --files-url s3://bucket/prefix/' first")
        }
        if try StoreConfiguration.read(from: source.root.paths(for: .read))?.catalog.isShared == true {
            throw UsageError("the store to migrate is shared already: migrate a one-machine store into a shared one")
        }
        let local = try source.open(for: .read)
        let report = try target.open(for: .write).migrate(from: local, overwriting: overwrites) { key, outcome in
            if !json { print("\(outcome.rawValue)\t\(key)") }
        }
        if json {
            JSONOutput.print(
                .object([
                    "copied": .array(report.copied.map { .string($0) }),
                    "alreadyThere": .array(report.alreadyThere.map { .string($0) }),
                    "conflicts": .array(report.conflicts.map { .string($0) }),
                    "skipped": .array(report.skipped.map { .string($0) }),
                    "notMigrated": .array(report.notMigrated.map { .string($0) }),
                    "verified": .integer(Int64(report.verified)),
                ]))
        } else {
            print(report.description)
        }
        if !report.conflicts.isEmpty {
            throw CommandFailure(
                "\(report.conflicts.count) key(s) are in the shared store otherwise, left as they are: "
                    + "\(report.conflicts.prefix(5).joined(separator: ", ")) (--overwrite replaces them)")
        }
        if !report.notMigrated.isEmpty {
            throw CommandFailure(
                "the keys are migrated, but not what ROOT keeps outside them: "
                    + report.notMigrated.joined(separator: "; "))
        }
    }
}
