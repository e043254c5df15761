import Foundation
import Strata

/// `strata key ...`: the passphrases and key files that open a backup repository. Each is a key slot sealing the
/// repository's one master key, so adding, removing or changing one never rewrites the backed-up data.
enum KeyCommands {
    static let name = "key"
    static let group = CommandGroup(
        name: name, summary: "List, add, remove or change the passphrases and key files of a backup repository.",
        commands: [KeyListCommand.self, KeyAddCommand.self, KeyRemoveCommand.self, KeyPasswdCommand.self])

    static let newPassphraseVariable = "STRATA_BACKUP_NEW_PASSPHRASE"
    static let newKeyFileOption = Option(
        "--new-key-file", "FILE",
        "The new key is this key file (make one with --create-key-file), else the passphrase in "
            + "STRATA_BACKUP_NEW_PASSPHRASE, else one typed twice at the terminal.", completion: .path)
    static let createKeyFileFlag = Flag(
        "--create-key-file", "Write a new key file of 32 random bytes (mode 0600) at --new-key-file first.")
    /// The options of the verbs that take a new key (`add`, `passwd`).
    static let newKeyOptions: [any OptionDeclaration] = [newKeyFileOption, createKeyFileFlag]
    static let newKeyDetails =
        "The repository is opened with --repo-key-file, else STRATA_BACKUP_PASSPHRASE, else the terminal; the new key "
        + "comes from --new-key-file, else STRATA_BACKUP_NEW_PASSPHRASE, else the terminal (asked twice)."

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
