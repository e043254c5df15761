import Foundation
import Strata

/// `strata verify ROOT`: every tier checked, what could not be checked said so (never called sound).
struct VerifyCommand: ToolCommand {
    static let allowUncheckedFlag = Flag(
        "--allow-unchecked", "Exit 0 when what could be checked is sound, though a part was not (no key given).")
    static let configuration = CommandConfiguration(
        "verify", summary: "Check the integrity of every tier of a store (exit 1 on any problem).",
        usage:
            "verify [ROOT] [--root DIR] [--keyring NAME] [--secrets-key-file FILE | --passphrase-file FILE] "
            + "[--allow-unchecked] [--json]",
        details:
            "The configuration (ROOT/strata.conf) must read; defaults suites must parse; keyrings and item headers "
            + "must be sound, and with the keyring's key (--secrets-key-file, STRATA_SECRETS_KEY) or passphrase "
            + "(--passphrase-file, STRATA_PASSPHRASE) every item is opened; record stores pass PRAGMA integrity_check "
            + "(on PostgreSQL, when the configuration puts them there, the server's table shapes); files match their "
            + "recorded CRC-32; the catalog agrees with the tiers. A part that could not be checked (a keyring with no "
            + "key given) is listed as unchecked and fails the verify unless --allow-unchecked.",
        arguments: [StoreRoot.positional],
        options: [StoreRoot.option, JSONOutput.option] + SecretsAccess.unlockOptions + [allowUncheckedFlag])

    /// The store, and the keyring (with what unlocks it) whose items are opened.
    var secrets: SecretsAccess
    var json: Bool
    var allowsUnchecked: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        let root = try StoreRoot(parsing: &arguments, positional: StoreRoot.positional)
        json = arguments.isSet(JSONOutput.option)
        secrets = try SecretsAccess(unlocking: &arguments, root: root)
        allowsUnchecked = arguments.isSet(Self.allowUncheckedFlag)
    }

    func run() throws {
        let paths = try secrets.root.paths(for: .read)
        var problems: [String] = []
        var unchecked: [String] = []
        let (configuration, configurationProblem) = InspectCommand.configuration(paths)
        if let configurationProblem { problems.append("\(StoreConfiguration.fileName): \(configurationProblem)") }
        for damaged in DefaultsStore.unreadableSuites(paths: paths) {
            problems.append("defaults/\((damaged.collection ?? "?") + ".plist"): \(damaged)")
        }
        let checkedKeyring = secrets.keyring ?? configuration.secrets.keyring
        for keyring in InspectCommand.keyrings(paths) {
            let store = try SecretStore(keyring: keyring, paths: paths)
            problems += store.structuralProblems().map { "secrets/\(keyring): \($0)" }
            guard store.keyringExists else { continue }
            guard keyring == checkedKeyring, let key = try verifyKey(for: store) else {
                unchecked.append(
                    "secrets/\(keyring): its items were not opened (no key for this keyring: give --secrets-key-file or "
                        + "--passphrase-file\(keyring == checkedKeyring ? "" : " with --keyring \(keyring)"), or set "
                        + "STRATA_SECRETS_KEY or STRATA_PASSPHRASE)")
                continue
            }
            do {
                try store.unlock(with: key, createIfMissing: false)
                for item in try store.items() { _ = try store.get(service: item.service, account: item.account) }
            } catch {
                problems.append("secrets/\(keyring): \(error)")
            }
        }
        if configuration.records.backend == "postgres" {
            do {
                if let server = try InspectCommand.configuredServerRecords(configuration) {
                    problems += try server.verify().map { "records/postgres: \($0)" }
                }
            } catch {
                problems.append("records/postgres: \(error)")
            }
        }
        for name in InspectCommand.names(in: paths.directoryPath(for: .records), suffix: ".sqlite") {
            do {
                problems += try StoreAccess.readOnlyRecords(at: paths.directoryPath(for: .records) + "/" + name)
                    .verify().map { "records/\(name): \($0)" }
            } catch {
                problems.append("records/\(name): \(error)")
            }
        }
        do {
            if let location = try Storage.filesLocation(configuration, environment: ProcessInfo.processInfo.environment)
            {
                let secrets = self.secrets
                let files = try Storage.s3FileStore(location) { try secrets.open(for: .read) }
                problems += try files.verify().filter { $0.kind != .unrecorded }.map { "files/s3: \($0)" }
            }
        } catch {
            problems.append("files/s3: \(error)")
        }
        if FileManager.default.fileExists(atPath: paths.directoryPath(for: .files)) {
            problems += try FileStore(paths: paths).verify().filter { $0.kind != .unrecorded }.map { "files/\($0)" }
        }
        let catalog = try Self.catalogVerdict(paths, key: catalogKey(paths: paths, keyring: configuration))
        problems += catalog.problems
        unchecked += catalog.unchecked
        try report(problems: problems, unchecked: unchecked, root: paths.root)
    }

    /// Prints the verdict (text, or `--json`) and fails for any problem, and for anything unchecked unless
    /// `--allow-unchecked`.
    func report(problems: [String], unchecked: [String], root: String) throws {
        if json {
            var verdict = JSONOutput.verdict(problems.map { .string($0) }, root: root)
            if case .object(var members) = verdict {
                members["unchecked"] = .array(unchecked.map { .string($0) })
                members["ok"] = .bool(problems.isEmpty && (unchecked.isEmpty || allowsUnchecked))
                verdict = .object(members)
            }
            JSONOutput.print(verdict)
        } else {
            for problem in problems { print(problem.escapedForDisplay) }
            for part in unchecked { print("unchecked: \(part.escapedForDisplay)") }
            if problems.isEmpty {
                print(
                    unchecked.isEmpty
                        ? "ok: every tier of \(root) is sound"
                        : "ok: what could be checked in \(root) is sound; \(unchecked.count) part(s) not checked")
            }
        }
        if !problems.isEmpty { throw Verdict.failed(problems.count, tier: nil) }
        if !unchecked.isEmpty, !allowsUnchecked {
            throw StorageError(
                .locked, "\(unchecked.count) part(s) of the store could not be checked", path: root,
                recovery: "Give the key they need (listed above), or pass --allow-unchecked to accept a partial check")
        }
    }

    /// What opens `store` for the check: `--secrets-key-file`, else for a keyring protected by a passphrase the passphrase
    /// from `--passphrase-file` or `STRATA_PASSPHRASE`, else for one protected by a key `STRATA_SECRETS_KEY`; `nil`
    /// when none is given (the terminal is never asked: a check runs unattended).
    func verifyKey(for store: SecretStore) throws -> KeyProvider? {
        if let file = secrets.keyFile { return .keyFile(file) }
        let environment = ProcessInfo.processInfo.environment
        if try store.isPassphraseProtected == true {
            guard secrets.passphraseFile != nil || !(environment["STRATA_PASSPHRASE"] ?? "").isEmpty else {
                return nil
            }
            return .passphrase(try StoreAccess.passphrase(file: secrets.passphraseFile))
        }
        guard !(environment[KeyProvider.environmentVariable] ?? "").isEmpty else { return nil }
        return .environment(KeyProvider.environmentVariable)
    }

    /// The key the catalog's check unlocks the configured keyring with (see ``verifyKey(_:for:)``), when it exists.
    func catalogKey(paths: StoragePaths, keyring configuration: StoreConfiguration) throws -> KeyProvider? {
        let store = try SecretStore(keyring: configuration.secrets.keyring, paths: paths)
        guard store.keyringExists else { return nil }
        return try verifyKey(for: store)
    }
}
