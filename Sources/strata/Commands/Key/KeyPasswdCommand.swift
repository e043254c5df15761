import Strata

/// `strata key passwd`: replaces the key the repository was opened with; the new slot is durable before the old
/// one is removed.
struct KeyPasswdCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "passwd", group: KeyCommands.name, summary: "Replace the key the repository was opened with by a new one.",
        usage: "key passwd --repo DIR [--repo-key-file FILE] [--new-key-file FILE [--create-key-file]] [--json]",
        details: KeyCommands.newKeyDetails + " The new slot is durable before the old one is removed.",
        options: RepositoryAccess.options + KeyCommands.newKeyOptions + [JSONOutput.option])

    var repository: RepositoryAccess
    var newKey: NewRepositoryKey
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        repository = try RepositoryAccess(parsing: &arguments)
        newKey = try NewRepositoryKey(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let repository = try repository.open()
        let id = try repository.changeKey(to: try newKey.key())
        if json { return JSONOutput.print(.object(["id": .string(id)])) }
        print("key changed: the repository now opens with key slot \(id.prefix(12)), not the old key")
    }
}
