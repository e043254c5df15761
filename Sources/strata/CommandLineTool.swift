import Foundation
import Strata

/// Dispatches `strata <verb> ...` and turns errors into messages and exit codes.
enum CommandLineTool {
    /// The tool's version: what `strata --version` prints. Policy (checked by a test against CHANGELOG.md): while
    /// the changelog's newest section is `[Unreleased]`, it is the version being prepared with `-dev` (above every
    /// released one); a release renames that section `[X.Y.Z] - date` and sets this to `X.Y.Z` in one commit.
    static let version = "0.1.0-dev"

    /// The one table from a verb's name to what runs it, in the order the overview lists them.
    static let table: [CommandTableEntry] = [
        .command(DemoCommand.self), .command(InitCommand.self), .command(MigrateCommand.self),
        .command(SelectCommand.self),
        .command(PutCommand.self), .command(GetCommand.self), .command(WhereCommand.self), .command(LsCommand.self),
        .command(MvCommand.self), .command(RmCommand.self), .command(InspectCommand.self),
        .command(VerifyCommand.self), .command(LintCommand.self), .command(BackupCommand.self),
        .command(SnapshotsCommand.self), .command(RestoreCommand.self), .command(ForgetCommand.self),
        .command(PruneCommand.self), .command(CheckCommand.self), .command(CompletionCommand.self),
        .command(VersionCommand.self), .group(DefaultsCommands.group), .group(SecretsCommands.group),
        .group(RecordsCommands.group), .group(FilesCommands.group), .group(KeyCommands.group),
    ]

    /// The groups of the table (`files`, `key`).
    static var groups: [CommandGroup] {
        table.compactMap { entry in
            guard case .group(let group) = entry else { return nil }
            return group
        }
    }

    static var overview: String {
        var lines = [
            "strata \(version): the storage tiers iOS developers rely on, for Swift on Linux.", "",
            "Usage: strata <command> [options]", "", "Commands:",
        ]
        let width = table.map(\.name.count).max() ?? 0
        for entry in table {
            lines.append("  " + entry.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + entry.summary)
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
        if arguments.first == KeyCompletion.verb { return KeyCompletion.run(Array(arguments.dropFirst())) }
        let arguments = StoreRoot.movingGlobalOptions(arguments, groups: groups.map(\.name))
        guard let verb = arguments.first else {
            printError(overview)
            return 2
        }
        if verb == "--help" || verb == "-h" || verb == "help" {
            switch arguments.count > 1 ? table.first(where: { $0.name == arguments[1] }) : nil {
            case .group(let group)?: print(group.help)
            case .command(let command)?: print(command.configuration.help)
            case nil: print(overview)
            }
            return 0
        }
        if verb == "--version" {
            print(version)
            return 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            guard let entry = table.first(where: { $0.name == verb }) else {
                if StoreRoot.isGlobalOption(verb) {
                    throw UsageError(
                        "'\(verb)' must be followed by a command (strata --root DIR <command>)", command: "")
                }
                let known = table.map(\.name) + ["help", "--help", "--version"]
                throw UsageError("unknown command '\(verb)'" + Suggestion.phrase(for: verb, in: known), command: "")
            }
            try entry.run(rest)
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
        switch table.first(where: { $0.name == verb }) {
        case nil: ""
        case .group(let group)?:
            rest.first.flatMap { group.command(named: $0) }.map { "\(verb) \($0.configuration.name)" } ?? verb
        case .command?: verb
        }
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
