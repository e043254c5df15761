import Strata

/// `strata secrets rotate`: a new data key for the keyring, every item re-sealed under it.
struct SecretsRotateCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "rotate", group: SecretsCommands.name,
        summary: "Replace the keyring's data key and re-seal every item (after a leak; passwd only rewraps).",
        usage: "secrets rotate --root DIR", options: SecretsAccess.options)

    var access: SecretsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        access = try SecretsAccess(parsing: &arguments)
    }

    func run() throws {
        let (store, provider) = try access.unlocked(for: .read)
        let rotation = try store.rotate(with: provider)
        print("data key rotated; \(rotation.resealed) item(s) re-sealed")
        guard rotation.unreadable.isEmpty else {
            throw StorageError(
                .corrupt,
                "\(rotation.unreadable.count) item file(s) opened under neither key and were left as they were: "
                    + rotation.unreadable.joined(separator: ", "),
                tier: .secrets, recovery: "Restore those items from a backup, or delete them")
        }
    }
}
