/// A verb of the tool's command table (``CommandLineTool/table``): a command, or a group of commands.
enum CommandTableEntry: Sendable {
    case command(any ToolCommand.Type)
    case group(CommandGroup)

    var name: String {
        switch self {
        case .command(let command): command.configuration.name
        case .group(let group): group.name
        }
    }

    var summary: String {
        switch self {
        case .command(let command): command.configuration.summary
        case .group(let group): group.summary
        }
    }

    /// Runs it with the words after its name.
    func run(_ words: [String]) throws {
        switch self {
        case .command(let command): try command.main(words)
        case .group(let group): try group.dispatch(words)
        }
    }
}
