import Foundation

/// A verb with sub-verbs (`strata defaults get ...`).
struct CommandGroup {
    var name: String
    var summary: String
    var commands: [CommandSpec]
    var run: @Sendable (CommandSpec, ParsedArguments) throws -> Void

    /// A group of `commands`, each told it belongs to `name` (for its help, its errors and the completions).
    init(
        name: String, summary: String, commands: [CommandSpec],
        run: @escaping @Sendable (CommandSpec, ParsedArguments) throws -> Void
    ) {
        self.name = name
        self.summary = summary
        self.commands = commands.map { command in
            var command = command
            command.group = name
            return command
        }
        self.run = run
    }

    var help: String {
        var lines = ["Usage: strata \(name) <command> [options]", "", summary, "", "Commands:"]
        let width = max(commands.map(\.name.count).max() ?? 0, "<command>".count)
        func row(_ label: String, _ help: String) -> String {
            "  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + help
        }
        lines += commands.map { row($0.name, $0.summary) }
        lines += ["", "Arguments:", row("<command>", "One of the commands above; its own options follow it.")]
        lines += ["", "Options:", row("--help", "Show this help.")]
        lines += ["", "Run 'strata \(name) <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    func dispatch(_ arguments: [String]) throws {
        guard let verb = arguments.first, verb != "--help", verb != "-h" else { return print(help) }
        guard let spec = commands.first(where: { $0.name == verb }) else {
            throw UsageError(
                "unknown command '\(verb)' for 'strata \(name)'"
                    + Suggestion.phrase(for: verb, in: commands.map(\.name) + ["--help"]), command: name)
        }
        let parsed = try spec.parse(Array(arguments.dropFirst()))
        if parsed.wantsHelp { return print(spec.help) }
        try run(spec, parsed)
    }
}

extension ParsedArguments {
    /// The positional arguments, exactly `count` of them.
    /// - Parameter names: Their placeholders (`KEY`, `SERVICE ACCOUNT`), for the message.
    /// - Throws: ``UsageError`` that says how many were expected and how many were given.
    func positionals(_ count: Int, _ names: String) throws -> [String] {
        guard positionals.count == count else {
            let expected =
                switch count {
                case 0: "no arguments"
                case 1: "one \(names)"
                default: "\(count) arguments, \(names)"
                }
            throw UsageError("expected \(expected), got \(positionals.count)")
        }
        return positionals
    }

    /// The positional argument, if one is given.
    /// - Throws: ``UsageError`` when more than one is given.
    func optionalPositional(_ name: String) throws -> String? {
        guard positionals.count <= 1 else {
            throw UsageError("expected at most one \(name), got \(positionals.count)")
        }
        return positionals.first
    }
}
