import Foundation
import Strata

/// `strata key ...`: the passphrases and key files that open a backup repository. Each is a key slot sealing the
/// repository's one master key, so adding, removing or changing one never rewrites the backed-up data.
enum KeyCommands {
    static let newPassphraseVariable = "STRATA_BACKUP_NEW_PASSPHRASE"
    static let newKeyFileOption = OptionSpec.value(
        "--new-key-file", "FILE",
        "The new key is this key file (make one with --create-key-file), else the passphrase in "
            + "STRATA_BACKUP_NEW_PASSPHRASE, else one typed twice at the terminal.")
    static let createKeyFileOption = OptionSpec.flag(
        "--create-key-file", "Write a new key file of 32 random bytes (mode 0600) at --new-key-file first.")
    static let newKeyDetails =
        "The repository is opened with --key-file, else STRATA_BACKUP_PASSPHRASE, else the terminal; the new key "
        + "comes from --new-key-file, else STRATA_BACKUP_NEW_PASSPHRASE, else the terminal (asked twice)."

    static let group = CommandGroup(
        name: "key", summary: "List, add, remove or change the passphrases and key files of a backup repository.",
        commands: [
            CommandSpec(
                name: "list", summary: "List the key slots (kind, cost, creation time; never a key).",
                usage: "key list --repo DIR [--key-file FILE] [--json]",
                options: BackupCommands.repositoryOptions + [JSONOutput.option]),
            CommandSpec(
                name: "add", summary: "Add another passphrase or key file that opens the repository.",
                usage: "key add --repo DIR [--key-file FILE] [--new-key-file FILE [--create-key-file]]",
                options: BackupCommands.repositoryOptions + [newKeyFileOption, createKeyFileOption],
                details: newKeyDetails),
            CommandSpec(
                name: "remove", summary: "Remove a key slot (not the one the repository was opened with).",
                usage: "key remove SLOT --repo DIR [--key-file FILE]", options: BackupCommands.repositoryOptions,
                details: "SLOT is a slot id from 'key list' or a unique prefix of one."),
            CommandSpec(
                name: "passwd", summary: "Replace the key the repository was opened with by a new one.",
                usage: "key passwd --repo DIR [--key-file FILE] [--new-key-file FILE [--create-key-file]]",
                options: BackupCommands.repositoryOptions + [newKeyFileOption, createKeyFileOption],
                details: newKeyDetails + " The new slot is durable before the old one is removed."),
        ],
        run: run)

    static func run(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        switch spec.name {
        case "list":
            _ = try parsed.positionals(0, "")
            let slots = try BackupCommands.repository(parsed).keySlots()
            if parsed.has(JSONOutput.option.name) { return JSONOutput.print(.array(slots.map(json))) }
            for slot in slots {
                print(
                    [
                        slot.isCurrent ? "*" : " ", String(slot.id.prefix(12)),
                        slot.kind?.rawValue ?? "damaged", description(of: slot),
                    ].joined(separator: " "))
            }
        case "add":
            _ = try parsed.positionals(0, "")
            let repository = try BackupCommands.repository(parsed)
            let id = try repository.addKey(try newKey(parsed))
            print("key slot \(id.prefix(12)) added")
        case "remove":
            let id = try parsed.positionals(1, "SLOT")[0]
            try BackupCommands.repository(parsed).removeKey(id)
            print("key slot \(id) removed")
        default:
            _ = try parsed.positionals(0, "")
            let repository = try BackupCommands.repository(parsed)
            let id = try repository.changeKey(to: try newKey(parsed))
            print("key changed: the repository now opens with key slot \(id.prefix(12)), not the old key")
        }
    }

    /// The key to add: `--new-key-file` (written first with `--create-key-file`), else
    /// `STRATA_BACKUP_NEW_PASSPHRASE`, else the terminal, asked twice.
    static func newKey(_ parsed: ParsedArguments) throws -> RepositoryKey {
        if let file = parsed.value(newKeyFileOption.name) {
            if parsed.has(createKeyFileOption.name) { try RepositoryKey.createKeyFile(at: file) }
            return .keyFile(file)
        }
        guard !parsed.has(createKeyFileOption.name) else {
            throw UsageError("'--create-key-file' needs '--new-key-file FILE'")
        }
        if let value = ProcessInfo.processInfo.environment[newPassphraseVariable], !value.isEmpty {
            return .passphrase(value)
        }
        return .passphrase(try Terminal.readNewSecret(prompt: "New passphrase of the backup repository: "))
    }

    /// The slot's cost and creation time, or its damage.
    static func description(of slot: RepositoryKeySlot) -> String {
        if let damage = slot.damage { return "\(damage)" }
        var parts: [String] = []
        if let cost = slot.cost {
            let memory = cost.memory >= 1 << 20 ? "\(cost.memory >> 20) MiB" : "\(cost.memory >> 10) KiB"
            parts.append("argon2id \(cost.operations) passes over \(memory)")
        }
        if let created = slot.created { parts.append("created \(created.formatted(.iso8601))") }
        return parts.joined(separator: ", ")
    }

    static func json(_ slot: RepositoryKeySlot) -> JSONValue {
        .object([
            "id": .string(slot.id), "kind": slot.kind.map { .string($0.rawValue) } ?? .null,
            "current": .bool(slot.isCurrent),
            "operations": slot.cost.map { .integer(Int64($0.operations)) } ?? .null,
            "memory": slot.cost.map { .integer(Int64($0.memory)) } ?? .null,
            "created": slot.created.map { .string($0.formatted(.iso8601)) } ?? .null,
            "damage": slot.damage.map { .string("\($0)") } ?? .null,
        ])
    }
}
