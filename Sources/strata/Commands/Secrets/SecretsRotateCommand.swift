import Strata

/// `strata secrets rotate`: a new data key for the keyring, every item re-sealed under it.
struct SecretsRotateCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "rotate", group: SecretsCommands.name,
        summary: "Replace the keyring's data key and re-seal every item (after a leak; passwd only rewraps).",
        usage: "secrets rotate --root DIR [--json]", options: SecretsAccess.options + [JSONOutput.option])

    var access: SecretsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try SecretsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let (store, provider) = try access.unlocked(for: .read)
        let rotation = try store.rotate(with: provider)
        if json {
            // Printed before an unreadable item fails the verb: the re-sealed ones are done either way.
            JSONOutput.print(
                .object([
                    "resealed": .integer(Int64(rotation.resealed)),
                    "unreadable": .array(rotation.unreadable.map { .string($0) }),
                ]))
        } else {
            print("data key rotated; \(rotation.resealed) item(s) re-sealed")
        }
        guard rotation.unreadable.isEmpty else {
            throw StorageError(
                .corrupt,
                "\(rotation.unreadable.count) item file(s) opened under neither key and were left as they were: "
                    + rotation.unreadable.joined(separator: ", "),
                tier: .secrets, recovery: "Restore those items from a backup, or delete them")
        }
    }
}
