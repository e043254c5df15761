import Foundation

/// What a command is, declared once in its type (``ToolCommand/configuration``): its name, what it does, and the
/// arguments and options it accepts. The parser, the help page and the completion scripts all read it.
struct CommandConfiguration: Sendable {
    var name: String
    /// The group the command belongs to (`files` for `files ls`), or `nil` for a top-level command.
    var group: String?
    var summary: String
    /// The usage line after `strata ` (`files ls [PREFIX] --root DIR|--url s3://B/P [--long] [--json]`): the
    /// command's words, its arguments and options as a reader types them, alternatives (`|`) included.
    var usage: String
    var details: String
    var arguments: [ArgumentSpec]
    var options: [OptionSpec]
    /// What it prints when it succeeds.
    var output: CommandOutput

    /// - Parameters:
    ///   - arguments: The positional arguments, in order; only the last may be optional or a list.
    ///   - options: Every option the command reads, besides `--help`.
    ///   - output: What it prints; ``CommandOutput/json`` exactly when `options` holds ``JSONOutput/option``.
    init(
        _ name: String, group: String? = nil, summary: String, usage: String, details: String = "",
        arguments: [any ArgumentDeclaration] = [], options: [any OptionDeclaration] = [],
        output: CommandOutput = .json
    ) {
        self.name = name
        self.group = group
        self.summary = summary
        self.usage = usage
        self.details = details
        self.arguments = arguments.map(\.spec)
        self.options = options.map(\.spec)
        self.output = output
        precondition(
            (output == .json) == self.options.contains(JSONOutput.option.spec),
            "\(name): a command that prints a result takes --json; one that does not says what it prints")
        precondition(
            self.arguments.dropLast().allSatisfy { $0.arity == .one },
            "\(name): only the last argument may be optional or a list")
    }

    /// The words that call the command after `strata`: `files ls`, `inspect`.
    var path: String { group.map { "\($0) \(name)" } ?? name }

    /// The text of `strata <command> --help`: usage, summary, details, then the Arguments and Options sections.
    var help: String {
        var lines = ["Usage: strata \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        if let line = output.helpLine { lines += ["", line] }
        let shown = options + [.help]
        let width = (arguments.map(\.label.count) + shown.map(\.label.count)).max() ?? 0
        func row(_ label: String, _ help: String) -> String {
            "  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + help
        }
        lines += ["", "Arguments:"]
        if arguments.isEmpty { lines.append("  (none)") }
        for argument in arguments { lines.append(row(argument.label, argument.help)) }
        lines += ["", "Options:"]
        for option in shown { lines.append(row(option.label, option.help)) }
        return lines.joined(separator: "\n")
    }

    /// The argument that takes the positional word at `index`: the declared one there, else a list at the end.
    func argument(at index: Int) -> ArgumentSpec? {
        if index < arguments.count { return arguments[index] }
        guard case .list? = arguments.last?.arity else { return nil }
        return arguments.last
    }
}
