import Foundation
import Strata

/// The engine's own verbs, through `Storage` and its catalog, on every tier: `strata put`, `get`, `where`, `ls`,
/// `mv` and `rm`. The store opens as an application's `Storage(root:)` opens it (its `strata.conf`); the secrets tier
/// unlocks with `--key-file`, `--passphrase-file` or `STRATA_SECRETS_KEY` when a verb reaches it.
enum StorageCommands {
    static let kinds = DataKind.allCases.map(\.rawValue).joined(separator: ", ")
    static let allowPlaintextOption = OptionSpec.flag(
        "--allow-plaintext",
        "Let a credential (a key the secrets tier holds, or put as --kind credential) go to a tier that stores "
            + "plaintext.")
    static let passphraseFileOption = OptionSpec.value(
        "--passphrase-file", "FILE", "Unlock a passphrase-protected keyring with the passphrase in FILE (mode 0600).")
    static let keyOptions = [SecretsAccess.keyFileOption, passphraseFileOption]

    static let put = CommandSpec(
        name: "put", summary: "Store a value in the tier the selector picks (moving it there if it lives elsewhere).",
        usage:
            "put KEY [FILE] --kind KIND --root DIR [--content-type TYPE] [--size BYTES] [--allow-plaintext] [--create] "
            + "[--json]",
        options: [
            StoreRoot.option, .value("--kind", "KIND", "What the value is: \(kinds)."),
            .value("--content-type", "TYPE", "Its media type (application/pdf, audio/wav)."),
            .value("--size", "BYTES", "What the selector is told of its size, when larger than the value itself."),
            allowPlaintextOption, StoreRoot.createOption,
        ] + keyOptions + [JSONOutput.option],
        details:
            "The value is FILE's content, or standard input when FILE is '-' or absent. The selector's choice is "
            + "printed: the tier, the rule that fired and why.")

    static let get = CommandSpec(
        name: "get", summary: "Write a key's value, from whichever tier holds it.",
        usage: "get KEY --root DIR [--output FILE]",
        options: [
            StoreRoot.option, .value("--output", "FILE", "Write it to FILE (mode 0600), else to standard output."),
        ]
            + keyOptions)

    static let whereSpec = CommandSpec(
        name: "where", summary: "Show where a key lives: tier, backend, rule, kind, size, modified.",
        usage: "where KEY --root DIR [--json]", options: [StoreRoot.option] + keyOptions + [JSONOutput.option])

    static let ls = CommandSpec(
        name: "ls", summary: "List the keys of every tier, sorted.",
        usage: "ls [PREFIX] --root DIR [--long] [--json]",
        options: [StoreRoot.option, .flag("--long", "Show where each key lives.")] + keyOptions + [JSONOutput.option],
        details:
            "PREFIX matches the start of a key, as Storage.keys(prefix:) does. A locked secrets tier is left out of "
            + "the listing, and said so.")

    static let mv = CommandSpec(
        name: "mv", summary: "Move a key to another tier, whatever the selector would say.",
        usage: "mv KEY TIER --root DIR [--allow-plaintext] [--json]",
        options: [StoreRoot.option, allowPlaintextOption] + keyOptions + [JSONOutput.option])

    static let rm = CommandSpec(
        name: "rm", summary: "Delete a key from every tier that holds it.", usage: "rm KEY --root DIR",
        options: [StoreRoot.option] + keyOptions)

    static let specs = [put, get, whereSpec, ls, mv, rm]

    static func run(_ spec: CommandSpec, _ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        switch spec.name {
        case put.name: try runPut(parsed)
        case get.name:
            let key = try parsed.positionals(1, "KEY")[0]
            let storage = try open(parsed, for: .read)
            guard let value = try storage.data(for: key) else { throw noValue(key) }
            if let output = parsed.value("--output") {
                try AtomicFile.write(value, to: output)
            } else {
                FileHandle.standardOutput.write(value)
            }
        case whereSpec.name:
            let key = try parsed.positionals(1, "KEY")[0]
            guard let location = try open(parsed, for: .read).location(of: key) else { throw noValue(key) }
            if parsed.has("--json") { return JSONOutput.print(JSONOutput.location(location)) }
            print(line(location))
        case ls.name:
            let prefix = try parsed.optionalPositional("PREFIX") ?? ""
            try runList(parsed, prefix: prefix)
        case mv.name:
            let arguments = try parsed.positionals(2, "KEY TIER")
            guard let tier = Tier(rawValue: arguments[1]) else {
                throw UsageError(
                    "'\(arguments[1])' is not a tier; use one of "
                        + Tier.allCases.map(\.rawValue).joined(separator: ", ")
                        + Suggestion.phrase(for: arguments[1], in: Tier.allCases.map(\.rawValue)))
            }
            let location = try open(parsed, for: .write).move(
                arguments[0], to: tier, allowingPlaintext: parsed.has(allowPlaintextOption.name))
            if parsed.has("--json") { return JSONOutput.print(JSONOutput.location(location)) }
            print(line(location))
        case rm.name:
            let key = try parsed.positionals(1, "KEY")[0]
            guard try open(parsed, for: .write).delete(key) else { throw noValue(key) }
        default: break
        }
    }

    /// `strata put`: reads the value, puts it, prints the selection.
    static func runPut(_ parsed: ParsedArguments) throws {
        let arguments = parsed.positionals
        guard (1...2).contains(arguments.count) else {
            throw UsageError("expected KEY and at most one FILE, got \(arguments.count) arguments")
        }
        guard let kindName = parsed.value("--kind") else { throw UsageError("'--kind KIND' is required (\(kinds))") }
        guard let kind = DataKind(rawValue: kindName) else {
            throw UsageError(
                "'\(kindName)' is not a kind; use one of \(kinds)"
                    + Suggestion.phrase(for: kindName, in: DataKind.allCases.map(\.rawValue)))
        }
        let size = try parsed.value("--size").map { text in
            guard let size = Int(text), size >= 0 else {
                throw UsageError("'--size' takes a number of bytes, got '\(text)'")
            }
            return size
        }
        let key = arguments[0]
        let value: Data
        if arguments.count == 2, arguments[1] != "-" {
            value = try InputFile.contents(arguments[1], key: key)
        } else {
            value = FileHandle.standardInput.readDataToEndOfFile()
        }
        let storage = try open(parsed, for: .write)
        let descriptor = DataDescriptor(
            kind: kind, estimatedSize: size ?? value.count, contentType: parsed.value("--content-type"),
            allowsPlaintext: parsed.has(allowPlaintextOption.name))
        let selection = try storage.put(value, for: key, as: descriptor)
        if parsed.has("--json") {
            return JSONOutput.print(
                .object([
                    "key": .string(key), "tier": .string(selection.tier.rawValue), "rule": .string(selection.ruleID),
                    "reason": .string(selection.reason), "size": .integer(Int64(value.count)),
                ]))
        }
        print("\(key.escapedForDisplay) -> \(selection.tier.rawValue) (\(selection.ruleID)): \(selection.reason)")
    }

    /// `strata ls`: the keys, or with `--long` where each lives.
    static func runList(_ parsed: ParsedArguments, prefix: String) throws {
        let storage = try open(parsed, for: .read)
        let keys = try storage.keys(prefix: prefix)
        let long = parsed.has("--long")
        let locations = long ? try keys.compactMap { try storage.location(of: $0) } : []
        if parsed.has("--json") {
            let entries: [JSONValue] =
                long ? locations.map(JSONOutput.location) : keys.map { .object(["key": .string($0)]) }
            return JSONOutput.print(.object(["keys": .array(entries)]))
        }
        if long {
            for location in locations { print(line(location)) }
        } else {
            for key in keys { print(key.escapedForDisplay) }
        }
    }

    /// Opens the store as `Storage(root:)` does, with the secrets key the options name (else `STRATA_SECRETS_KEY`).
    static func open(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> Storage {
        let paths = try StoreRoot.paths(parsed, for: use)
        var key: KeyProvider?
        if let file = parsed.value(SecretsAccess.keyFileOption.name) {
            guard parsed.value(passphraseFileOption.name) == nil else {
                throw UsageError("give either --key-file or --passphrase-file, not both")
            }
            key = .keyFile(file)
        } else if let file = parsed.value(passphraseFileOption.name) {
            key = try .passphrase(contentsOf: file)
        }
        return try Storage(root: paths.root, secretsKey: key)
    }

    /// One location as `where` and `ls --long` print it: key, tier, backend, rule, kind, size, modified, type.
    static func line(_ location: StorageLocation) -> String {
        [
            location.key.escapedForDisplay, location.tier.rawValue, location.backend.escapedForDisplay,
            location.ruleID.escapedForDisplay, location.kind?.rawValue ?? "-", "\(location.size)",
            ISO8601DateFormatter().string(from: location.modified), (location.contentType ?? "-").escapedForDisplay,
        ].joined(separator: "\t")
    }

    /// The error for a key no tier holds.
    static func noValue(_ key: String) -> StorageError {
        StorageError(
            .notFound, "no tier holds a value for this key", key: key,
            recovery: "'strata ls' lists the store's keys (check --root)")
    }
}
