import Strata

/// `strata key list`: the key slots; `*` marks the one the repository was opened with.
struct KeyListCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "list", group: KeyCommands.name, summary: "List the key slots (kind, cost, creation time; never a key).",
        usage: "key list --repo DIR [--repo-key-file FILE] [--json]",
        options: RepositoryAccess.options + [JSONOutput.option])

    var repository: RepositoryAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        repository = try RepositoryAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let slots = try repository.open().keySlots()
        if json { return JSONOutput.print(.array(slots.map(KeyCommands.json))) }
        for slot in slots {
            print(
                [
                    slot.isCurrent ? "*" : " ", String(slot.id.prefix(12)), slot.kind?.rawValue ?? "damaged",
                    KeyCommands.description(of: slot),
                ].joined(separator: " "))
        }
    }
}
