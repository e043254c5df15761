import Strata

/// `strata key remove SLOT`: removes a key slot (never the one the repository was opened with).
struct KeyRemoveCommand: ToolCommand {
    static let slot = Argument("SLOT", "A key slot's id, or any unique prefix of it (see 'strata key list').")
    static let configuration = CommandConfiguration(
        "remove", group: KeyCommands.name, summary: "Remove a key slot (not the one the repository was opened with).",
        usage: "key remove SLOT --repo DIR [--repo-key-file FILE] [--json]",
        details: "SLOT is a slot id from 'key list' or a unique prefix of one.", arguments: [slot],
        options: RepositoryAccess.options + [JSONOutput.option])

    var slot: String
    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        slot = try arguments.value(Self.slot)
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        try repository.open().removeKey(slot)
        if json { return JSONOutput.print(.object(["removed": .string(slot)])) }
        print("key slot \(slot.escapedForDisplay) removed")
    }
}
