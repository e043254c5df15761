import Foundation
import Strata

/// Dispatches `strata <verb> ...` and turns errors into messages and exit codes.
enum CommandLineTool {
    /// The tool's version: what `strata --version` prints. Policy (checked by a test against CHANGELOG.md): while
    /// the changelog's newest section is `[Unreleased]`, it is the version being prepared with `-dev` (above every
    /// released one); a release renames that section `[X.Y.Z] - date` and sets this to `X.Y.Z` in one commit.
    static let version = "0.1.0-dev"

    static let versionSpec = CommandSpec(name: "version", summary: "Print the version.", usage: "version")

    static let groups: [CommandGroup] = [
        DefaultsCommands.group, SecretsCommands.group, RecordsCommands.group, FilesCommands.group, KeyCommands.group,
    ]
    static let commands: [CommandSpec] =
        [
            DemoCommand.spec, InitCommand.spec, SelectCommand.spec,
        ] + StorageCommands.specs + [InspectCommand.inspect, InspectCommand.verify, LintCommand.spec]
        + BackupCommands.specs + [CompletionCommand.spec, versionSpec]
        + groups.map { CommandSpec(name: $0.name, summary: $0.summary, usage: "\($0.name) <command>") }

    static var overview: String {
        var lines = [
            "strata \(version): the storage tiers iOS developers rely on, for Swift on Linux.", "",
            "Usage: strata <command> [options]", "", "Commands:",
        ]
        let width = commands.map(\.name.count).max() ?? 0
        for command in commands {
            lines.append(
                "  " + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary)
        }
        lines += [
            "", "Run 'strata <command> --help' for a command's options.",
            "Exit codes: 0 success, 1 failure, 2 usage error; 130 after Ctrl-C and 143 after SIGTERM (a shell's "
                + "128 + the signal: the tool ends by the signal, after removing what it had not finished).",
        ]
        return lines.joined(separator: "\n")
    }

    /// The positions (1-based) of the process's arguments that are not UTF-8: `CommandLine.arguments` holds each
    /// decoded with U+FFFD in place of what does not decode, which would name another key, file or value.
    static func undecodableArguments() -> [Int] {
        (1..<Int(CommandLine.argc)).filter { index in
            CommandLine.unsafeArgv[index].map { String(validatingCString: $0) == nil } ?? false
        }
    }

    /// Runs the tool and returns its exit code.
    /// - Parameter undecodable: The positions of arguments that are not UTF-8 (``undecodableArguments()``): a usage
    ///   error, before anything is done.
    static func run(_ arguments: [String], undecodable: [Int] = []) -> Int32 {
        if let position = undecodable.first {
            printError(
                "strata: argument \(position) is not UTF-8 text (\(arguments[position - 1].escapedForDisplay)); keys, "
                    + "names, values and paths are UTF-8")
            return 2
        }
        let arguments = StoreRoot.movingGlobalOptions(arguments, groups: groups.map(\.name))
        guard let verb = arguments.first else {
            printError(overview)
            return 2
        }
        if verb == "--help" || verb == "-h" || verb == "help" {
            if arguments.count > 1, let group = groups.first(where: { $0.name == arguments[1] }) {
                print(group.help)
            } else if arguments.count > 1, let spec = commands.first(where: { $0.name == arguments[1] }) {
                print(spec.help)
            } else {
                print(overview)
            }
            return 0
        }
        if verb == "--version" {
            print(version)
            return 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch verb {
            case SelectCommand.spec.name: try SelectCommand.run(rest)
            case DemoCommand.spec.name: try DemoCommand.run(rest)
            case InitCommand.spec.name: try InitCommand.run(rest)
            case InspectCommand.inspect.name: try InspectCommand.runInspect(rest)
            case InspectCommand.verify.name: try InspectCommand.runVerify(rest)
            case LintCommand.spec.name: try LintCommand.run(rest)
            case CompletionCommand.spec.name: try CompletionCommand.run(rest)
            case let name where StorageCommands.specs.contains(where: { $0.name == name }):
                try StorageCommands.run(StorageCommands.specs.first { $0.name == name }!, rest)
            case let name where BackupCommands.specs.contains(where: { $0.name == name }):
                try BackupCommands.run(BackupCommands.specs.first { $0.name == name }!, rest)
            case versionSpec.name:
                let parsed = try versionSpec.parse(rest)
                _ = try parsed.positionals(0, "")
                print(parsed.wantsHelp ? versionSpec.help : version)
            default:
                if StoreRoot.isGlobalOption(verb) {
                    throw UsageError(
                        "'\(verb)' must be followed by a command (strata --root DIR <command>)", command: "")
                }
                guard let group = groups.first(where: { $0.name == verb }) else {
                    let known = commands.map(\.name) + ["help", "--help", "--version"]
                    throw UsageError(
                        "unknown command '\(verb)'" + Suggestion.phrase(for: verb, in: known), command: "")
                }
                try group.dispatch(rest)
            }
            return 0
        } catch let error as UsageError {
            let command = commandPath(verb, rest)
            let named = error.command != nil || command.isEmpty ? "strata" : "strata \(command)"
            printError("\(named): \(error)\nRun 'strata\(command.isEmpty ? "" : " " + command) --help' for usage.")
            return 2
        } catch {
            let command = commandPath(verb, rest)
            printError("strata\(command.isEmpty ? "" : " " + command): error: \(ToolRemedy.described(error))")
            return 1
        }
    }

    /// The words of the verb being run (`files ls`, `inspect`), or `""` when the first word is no verb.
    static func commandPath(_ verb: String, _ rest: [String]) -> String {
        guard commands.contains(where: { $0.name == verb }) else { return "" }
        if let group = groups.first(where: { $0.name == verb }), let sub = rest.first,
            group.commands.contains(where: { $0.name == sub })
        {
            return "\(verb) \(sub)"
        }
        return verb
    }

    /// Writes a message to standard error, each line escaped for display: a message can quote an archive entry, a
    /// key or a file name, and none of them may send control sequences to the user's terminal.
    static func printError(_ message: String) {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).escapedForDisplay
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
