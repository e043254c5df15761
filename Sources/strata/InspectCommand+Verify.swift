import Foundation
import Strata

// `strata verify ROOT`: every tier checked, what could not be checked said so (never called sound).
extension InspectCommand {
    static func runVerify(_ arguments: [String]) throws {
        let parsed = try verify.parse(arguments)
        if parsed.wantsHelp { return print(verify.help) }
        guard parsed.value(SecretsAccess.keyFileOption.name) == nil || parsed.value("--passphrase-file") == nil else {
            throw UsageError("give either --key-file or --passphrase-file, not both")
        }
        let paths = try root(parsed)
        var problems: [String] = []
        var unchecked: [String] = []
        let (configuration, configurationProblem) = self.configuration(paths)
        if let configurationProblem { problems.append("\(StoreConfiguration.fileName): \(configurationProblem)") }
        for damaged in DefaultsStore.unreadableSuites(paths: paths) {
            problems.append("defaults/\((damaged.collection ?? "?") + ".plist"): \(damaged)")
        }
        let checkedKeyring = try StoreAccess.name(parsed, "--keyring", of: "keyring") ?? configuration.secrets.keyring
        for keyring in keyrings(paths) {
            let store = try SecretStore(keyring: keyring, paths: paths)
            problems += store.structuralProblems().map { "secrets/\(keyring): \($0)" }
            guard store.keyringExists else { continue }
            guard keyring == checkedKeyring, let key = try verifyKey(parsed, for: store) else {
                unchecked.append(
                    "secrets/\(keyring): its items were not opened (no key for this keyring: give --key-file or "
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
                if let server = try configuredServerRecords(configuration) {
                    problems += try server.verify().map { "records/postgres: \($0)" }
                }
            } catch {
                problems.append("records/postgres: \(error)")
            }
        }
        for name in names(in: paths.directoryPath(for: .records), suffix: ".sqlite") {
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
                let files = try Storage.s3FileStore(location) { try SecretsAccess.open(parsed, for: .read) }
                problems += try files.verify().filter { $0.kind != .unrecorded }.map { "files/s3: \($0)" }
            }
        } catch {
            problems.append("files/s3: \(error)")
        }
        if FileManager.default.fileExists(atPath: paths.directoryPath(for: .files)) {
            problems += try FileStore(paths: paths).verify().filter { $0.kind != .unrecorded }.map { "files/\($0)" }
        }
        let catalog = try catalogVerdict(paths, key: catalogKey(parsed, paths: paths, keyring: configuration))
        problems += catalog.problems
        unchecked += catalog.unchecked
        try report(problems: problems, unchecked: unchecked, root: paths.root, parsed)
    }

    /// Prints the verdict (text, or `--json`) and fails for any problem, and for anything unchecked unless
    /// `--allow-unchecked`.
    static func report(problems: [String], unchecked: [String], root: String, _ parsed: ParsedArguments) throws {
        let allowsUnchecked = parsed.has(allowUncheckedOption.name)
        if parsed.has("--json") {
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

    /// What opens `store` for the check: `--key-file`, else for a keyring protected by a passphrase the passphrase
    /// from `--passphrase-file` or `STRATA_PASSPHRASE`, else for one protected by a key `STRATA_SECRETS_KEY`; `nil`
    /// when none is given (the terminal is never asked: a check runs unattended).
    static func verifyKey(_ parsed: ParsedArguments, for store: SecretStore) throws -> KeyProvider? {
        if let file = parsed.value(SecretsAccess.keyFileOption.name) { return .keyFile(file) }
        let environment = ProcessInfo.processInfo.environment
        if try store.isPassphraseProtected == true {
            guard parsed.value("--passphrase-file") != nil || !(environment["STRATA_PASSPHRASE"] ?? "").isEmpty else {
                return nil
            }
            return .passphrase(try StoreAccess.passphrase(parsed))
        }
        guard !(environment[KeyProvider.environmentVariable] ?? "").isEmpty else { return nil }
        return .environment(KeyProvider.environmentVariable)
    }

    /// The key the catalog's check unlocks the configured keyring with (see ``verifyKey(_:for:)``), when it exists.
    static func catalogKey(_ parsed: ParsedArguments, paths: StoragePaths, keyring configuration: StoreConfiguration)
        throws -> KeyProvider?
    {
        let store = try SecretStore(keyring: configuration.secrets.keyring, paths: paths)
        guard store.keyringExists else { return nil }
        return try verifyKey(parsed, for: store)
    }
}
