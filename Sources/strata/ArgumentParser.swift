import Foundation
import Strata

/// One option a command accepts: a flag (`--sensitive`) or an option with a value (`--kind K`).
struct OptionSpec {
    var name: String
    /// The placeholder of the value, or `nil` for a flag.
    var valueName: String?
    var help: String
    /// Whether the option may be given more than once, each value kept (`--where`); another option given twice
    /// with two values is a usage error, never the last one silently.
    var isRepeatable = false

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }
    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
    static func repeatable(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, isRepeatable: true)
    }
}

/// A verb of the tool: its name, what it does, and what it accepts.
struct CommandSpec {
    var name: String
    var summary: String
    /// The usage line after `strata `, naming the verb's words, its positionals (upper case: `KEY`, `[PREFIX]`,
    /// `PATH...`) and its options; ``arguments`` is read from it.
    var usage: String
    var options: [OptionSpec] = []
    var details: String = ""
    /// The group the verb belongs to (`files` for `files ls`), or `nil` for a top-level verb.
    var group: String? = nil
    /// The positions (0-based) of positionals that take any text (`defaults set KEY VALUE`'s VALUE): there an
    /// argument that starts with `-` and is not one of ``options`` (`-5`, `-h`) is the positional itself, never an
    /// option or a request for help.
    var freeFormPositionals: Set<Int> = []

    /// The words that call the verb after `strata`: `files ls`, `inspect`.
    var path: String { group.map { "\($0) \(name)" } ?? name }

    /// The positional arguments, as the usage line names them.
    var arguments: [PositionalArgument] {
        PositionalArgument.parse(usage: usage, commandWords: group == nil ? 1 : 2, options: options)
    }

    /// The text of `strata <verb> --help`: usage, summary, details, then the ARGUMENTS and OPTIONS sections.
    var help: String {
        var lines = ["Usage: strata \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        let shown = options + [.flag("--help", "Show this help.")]
        let arguments = self.arguments
        let width = (arguments.map(\.label.count) + shown.map { label($0).count }).max() ?? 0
        func row(_ label: String, _ help: String) -> String {
            "  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + help
        }
        lines += ["", "Arguments:"]
        if arguments.isEmpty { lines.append("  (none)") }
        for argument in arguments {
            lines.append(row(argument.label, PositionalArgument.help(for: argument.name, group: group) ?? ""))
        }
        lines += ["", "Options:"]
        for option in shown { lines.append(row(label(option), option.help)) }
        return lines.joined(separator: "\n")
    }

    private func label(_ option: OptionSpec) -> String {
        option.valueName.map { "\(option.name) \($0)" } ?? option.name
    }
}

/// What the parser found.
struct ParsedArguments {
    var values: [String: String] = [:]
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func allValues(_ name: String) -> [String] { repeated[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}

/// A mistake in how the tool was called: printed with a pointer to `--help`, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    /// The command the message already names (`files ls`), or `nil`: the tool then puts the verb it was
    /// running in front of the message.
    var command: String?
    init(_ description: String, command: String? = nil) {
        self.description = description
        self.command = command
    }
}

/// A failure while doing the work: printed on stderr, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension CommandSpec {
    /// Parses `arguments` against this command's options.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, or a value given to a flag.
    func parse(_ arguments: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if freeFormPositionals.contains(parsed.positionals.count), argument != "--",
                !options.contains(where: {
                    $0.name == argument.split(separator: "=", maxSplits: 1).first.map(String.init)
                })
            {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let known = options.map(\.name) + ["--help"]
                throw UsageError(
                    "unknown option '\(name)' for 'strata \(path)'" + Suggestion.phrase(for: name, in: known),
                    command: path)
            }
            if spec.valueName == nil {
                if inline != nil { throw UsageError("'\(name)' is a flag and takes no value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { throw UsageError("'\(name)' needs a value (\(spec.valueName!))") }
                value = arguments[index]
                index += 1
            }
            if !spec.isRepeatable, let earlier = parsed.values[name], earlier != value {
                throw UsageError(
                    "'\(name)' is given twice, as '\(earlier.escapedForDisplay)' and '\(value.escapedForDisplay)'; "
                        + "give it once")
            }
            parsed.values[name] = value
            parsed.repeated[name, default: []].append(value)
        }
        return parsed
    }
}
