import Foundation
import Strata

/// `strata inspect ROOT` and `strata verify ROOT`: every tier of a store at a glance, and its integrity.
enum InspectCommand {
    static let inspect = CommandSpec(
        name: "inspect", summary: "Show what a store holds: each tier's files, counts and sizes.", usage: "inspect ROOT"
    )
    static let verify = CommandSpec(
        name: "verify", summary: "Check the integrity of every tier of a store (exit 1 on any problem).",
        usage: "verify ROOT [--keyring NAME --passphrase-file FILE]",
        options: StoreAccess.passphraseOptions,
        details:
            "Defaults suites must parse; keyrings and item headers must be sound (with a passphrase, every item is also opened); record stores pass PRAGMA integrity_check; files match their recorded CRC-32."
    )

    static func root(_ parsed: ParsedArguments) throws -> StoragePaths {
        let root = try parsed.positionals(1, "ROOT")[0]
        guard FileManager.default.fileExists(atPath: root) else {
            throw CommandFailure("the store root '\(root)' does not exist")
        }
        return try StoragePaths(root: root, create: false)
    }

    static func names(in folder: String, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(suffix) && !$0.hasPrefix(".")
        }.sorted()
    }

    static func runInspect(_ arguments: [String]) throws {
        let parsed = try inspect.parse(arguments)
        if parsed.wantsHelp { return print(inspect.help) }
        let paths = try root(parsed)
        print("store: \(paths.root)")
        let defaults = paths.root + "/defaults"
        let suites = names(in: defaults, suffix: ".plist")
        print("defaults: \(suites.count) suite(s)")
        for suite in suites {
            let data = FileManager.default.contents(atPath: defaults + "/" + suite) ?? Data()
            let count: String
            if case .dictionary(let keys)? = try? PropertyListFormat.decode(data) {
                count = "\(keys.count) keys"
            } else {
                count = "UNREADABLE"
            }
            print("  \(String(suite.dropLast(6)).escapedForDisplay): \(count), \(data.count) bytes")
        }
        let keyrings = ((try? FileManager.default.contentsOfDirectory(atPath: paths.root + "/secrets")) ?? []).sorted()
        print("secrets: \(keyrings.count) keyring(s)")
        for keyring in keyrings {
            let store = try SecretStore(keyring: keyring, paths: paths)
            print("  \(keyring): \(store.itemCount) item(s)\(store.keyringExists ? "" : ", no keyring file")")
        }
        let stores = names(in: paths.root + "/records", suffix: ".sqlite")
        print("records: \(stores.count) store(s)")
        for name in stores {
            let shown = String(name.dropLast(7)).escapedForDisplay
            do {
                let store = try StoreAccess.readOnlyRecords(at: paths.root + "/records/" + name)
                let collections = try store.collectionNames()
                let counts = try collections.map { "\($0) \(try store.collection(AnyRecord.self, named: $0).count())" }
                print("  \(shown): \(collections.isEmpty ? "no collections" : counts.joined(separator: ", "))")
            } catch {
                // Like an unreadable suite above: say why, and go on with the other stores and tiers.
                print("  \(shown): UNREADABLE: \("\(error)".escapedForDisplay)")
            }
        }
        if FileManager.default.fileExists(atPath: paths.root + "/files") {
            let files = try FileStore(paths: paths)
            let keys = try files.list()
            let bytes = try keys.reduce(0) { $0 + (try files.metadata($1)?.size ?? 0) }
            print("files: \(keys.count) file(s), \(bytes) bytes")
        } else {
            print("files: none")
        }
    }

    static func runVerify(_ arguments: [String]) throws {
        let parsed = try verify.parse(arguments)
        if parsed.wantsHelp { return print(verify.help) }
        let paths = try root(parsed)
        var problems: [String] = []
        let defaults = paths.root + "/defaults"
        for suite in names(in: defaults, suffix: ".plist") {
            let data = FileManager.default.contents(atPath: defaults + "/" + suite) ?? Data()
            do {
                guard case .dictionary = try PropertyListFormat.decode(data) else {
                    problems.append("defaults/\(suite): not a dictionary")
                    continue
                }
            } catch {
                problems.append("defaults/\(suite): \(error)")
            }
        }
        for keyring in ((try? FileManager.default.contentsOfDirectory(atPath: paths.root + "/secrets")) ?? []).sorted()
        {
            let store = try SecretStore(keyring: keyring, paths: paths)
            problems += store.structuralProblems().map { "secrets/\(keyring): \($0)" }
            if parsed.value("--passphrase-file") != nil
                || ProcessInfo.processInfo.environment["STRATA_PASSPHRASE"] != nil,
                parsed.value("--keyring") ?? "default" == keyring
            {
                do {
                    try store.unlock(with: .passphrase(try StoreAccess.passphrase(parsed)))
                    for item in try store.items() { _ = try store.get(service: item.service, account: item.account) }
                } catch {
                    problems.append("secrets/\(keyring): \(error)")
                }
            }
        }
        for name in names(in: paths.root + "/records", suffix: ".sqlite") {
            do {
                problems += try StoreAccess.readOnlyRecords(at: paths.root + "/records/" + name).verify().map {
                    "records/\(name): \($0)"
                }
            } catch {
                problems.append("records/\(name): \(error)")
            }
        }
        if FileManager.default.fileExists(atPath: paths.root + "/files") {
            problems += try FileStore(paths: paths).verify().filter { $0.kind != .unrecorded }.map { "files/\($0)" }
        }
        problems += try catalogProblems(paths, parsed)
        if problems.isEmpty {
            print("ok: every tier of \(paths.root) is sound")
        } else {
            for problem in problems { print(problem.escapedForDisplay) }
            throw CommandFailure("\(problems.count) problem(s) found")
        }
    }
}
