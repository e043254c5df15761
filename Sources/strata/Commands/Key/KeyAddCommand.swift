import Strata

/// `strata key add`: another passphrase or key file that opens the repository.
struct KeyAddCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "add", group: KeyCommands.name, summary: "Add another passphrase or key file that opens the repository.",
        usage: "key add --repo DIR [--repo-key-file FILE] [--new-key-file FILE [--create-key-file]] [--json]",
        details: KeyCommands.newKeyDetails,
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
        let id = try repository.addKey(try newKey.key())
        if json { return JSONOutput.print(.object(["id": .string(id)])) }
        print("key slot \(id.prefix(12)) added")
    }
}
