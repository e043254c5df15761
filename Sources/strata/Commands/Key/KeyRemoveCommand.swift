import Strata

/// `strata key remove SLOT`: removes a key slot (never the one the repository was opened with).
struct KeyRemoveCommand: ToolCommand {
    static let slot = Argument("SLOT", "A key slot's id, or any unique prefix of it (see 'strata key list').")
    static let configuration = CommandConfiguration(
        "remove", group: KeyCommands.name, summary: "Remove a key slot (not the one the repository was opened with).",
        usage: "key remove SLOT --repo DIR [--repo-key-file FILE]",
        details: "SLOT is a slot id from 'key list' or a unique prefix of one.", arguments: [slot],
        options: RepositoryAccess.options)

    var slot: String
    var repository: RepositoryAccess

    init(parsing arguments: inout ParsedArguments) throws {
        slot = try arguments.value(Self.slot)
        repository = try RepositoryAccess(parsing: &arguments)
    }

    func run() throws {
        try repository.open().removeKey(slot)
        print("key slot \(slot) removed")
    }
}
