import Foundation

/// A verb with sub-verbs (`strata defaults get ...`): the commands it dispatches to, by name.
struct CommandGroup: Sendable {
    var name: String
    var summary: String
    var commands: [any ToolCommand.Type]

    /// - Parameter commands: Each one's configuration names `name` as its group.
    init(name: String, summary: String, commands: [any ToolCommand.Type]) {
        precondition(commands.allSatisfy { $0.configuration.group == name }, "\(name): a command of another group")
        self.name = name
        self.summary = summary
        self.commands = commands
    }

    var help: String {
        let configurations = commands.map { $0.configuration }
        var lines = ["Usage: strata \(name) <command> [options]", "", summary, "", "Commands:"]
        let width = max(configurations.map(\.name.count).max() ?? 0, "<command>".count)
        func row(_ label: String, _ help: String) -> String {
            "  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + help
        }
        lines += configurations.map { row($0.name, $0.summary) }
        lines += ["", "Arguments:", row("<command>", "One of the commands above; its own options follow it.")]
        lines += ["", "Options:", row("--help", "Show this help.")]
        lines += ["", "Run 'strata \(name) <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    /// The command called `name`, if the group has one.
    func command(named name: String) -> (any ToolCommand.Type)? {
        commands.first { $0.configuration.name == name }
    }

    /// Runs the command the first word names with the words after it, or prints the group's help.
    func dispatch(_ words: [String]) throws {
        guard let verb = words.first, verb != "--help", verb != "-h" else { return print(help) }
        guard let command = command(named: verb) else {
            throw UsageError(
                "unknown command '\(verb)' for 'strata \(name)'"
                    + Suggestion.phrase(for: verb, in: commands.map { $0.configuration.name } + ["--help"]),
                command: name)
        }
        try command.main(Array(words.dropFirst()))
    }
}
