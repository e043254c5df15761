import Foundation
import StrataTestSupport
import Testing

/// The `strata` tool as a shell user meets it (issue 16, item 8): completion scripts made from the command
/// table, "did you mean" for mistypes, the command named in every error, ARGUMENTS in every help page, and one
/// version that the changelog agrees with.
@Suite("strata CLI: completions, suggestions, help and version")
struct CompletionAndHelpTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-completions") }

    func strata(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(try TestExecutables.url(named: "strata"), arguments, environment: ["STRATA_ROOT": ""])
    }

    /// Every verb of the tool: top-level ones, and each group's (`files ls`), read from the help it prints.
    func allVerbs() throws -> [[String]] {
        let overview = try strata(["--help"]).standardOutput
        let top = Self.commandNames(in: overview)
        var verbs: [[String]] = []
        for name in top {
            let help = try strata([name, "--help"]).standardOutput
            if help.contains("<command>") {
                verbs += Self.commandNames(in: help).map { [name, $0] }
            } else {
                verbs.append([name])
            }
        }
        return verbs
    }

    /// The names listed under "Commands:" in a help text.
    static func commandNames(in help: String) -> [String] {
        guard let start = help.range(of: "Commands:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("  ") }.map {
            String($0.split(separator: " ")[0])
        }
    }

    /// Runs bash with the completion script loaded and completes `line` (the cursor at its end).
    func bashCompletes(_ line: String, script: String) throws -> [String] {
        let file = directory.appending("strata.bash")
        try Data(script.utf8).write(to: URL(fileURLWithPath: file))
        var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if words.isEmpty { words = [""] }
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(file)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _strata
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", program], environment: [:])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesVerbsGroupsOptionsAndPaths() throws {
        let script = try strata(["completions", "bash"])
        try #require(script.status == 0, "\(script.standardError)")
        let check = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-n", "-c", script.standardOutput])
        #expect(check.status == 0, "bash -n: \(check.standardError)")
        #expect(try bashCompletes("strata fi", script: script.standardOutput) == ["files"])
        #expect(try bashCompletes("strata files l", script: script.standardOutput) == ["ls"])
        #expect(try bashCompletes("strata files ls --lo", script: script.standardOutput) == ["--long"])
        #expect(try bashCompletes("strata --root /tmp files ex", script: script.standardOutput) == ["export"])
        #expect(try bashCompletes("strata co", script: script.standardOutput) == ["completions"])
        // A file argument, or an option whose value is a file, completes paths.
        #expect(FileManager.default.createFile(atPath: directory.appending("photo.jpg"), contents: Data()))
        let prefix = directory.appending("pho")
        #expect(
            try bashCompletes("strata files put key \(prefix)", script: script.standardOutput) == [prefix + "to.jpg"])
        #expect(
            try bashCompletes("strata files get key --output \(prefix)", script: script.standardOutput)
                == [prefix + "to.jpg"])
        // A key is not a path: nothing is offered.
        #expect(try bashCompletes("strata files rm \(prefix)", script: script.standardOutput).isEmpty)
    }

    @Test func theScriptsCoverEveryVerbAndOption() throws {
        let verbs = try allVerbs()
        #expect(verbs.contains(["files", "ls"]) && verbs.contains(["completions"]))
        for shell in ["bash", "zsh", "fish"] {
            let script = try strata(["completions", shell]).standardOutput
            for verb in verbs {
                #expect(script.contains(verb.last!), "\(shell) lacks \(verb)")
                let help = try strata(verb + ["--help"]).standardOutput
                for option in Self.optionNames(in: help) {
                    #expect(
                        script.contains(shell == "fish" ? "-l \(option.dropFirst(2))" : option),
                        "\(shell): \(verb) \(option)")
                }
            }
        }
    }

    /// The options listed under "Options:" in a help text.
    static func optionNames(in help: String) -> [String] {
        guard let start = help.range(of: "Options:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line in
            let word = line.split(separator: " ").first.map(String.init) ?? ""
            return word.hasPrefix("--") ? word : nil
        }
    }

    @Test(arguments: ["zsh", "fish"])
    func otherShellsAcceptTheirScripts(shell: String) throws {
        let paths = ["/usr/bin/\(shell)", "/bin/\(shell)"]
        guard let executable = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            // Scripts/install-deps.sh installs both; a machine without them checks bash only.
            return
        }
        let file = directory.appending("strata.\(shell)")
        try Data(try strata(["completions", shell]).standardOutput.utf8).write(to: URL(fileURLWithPath: file))
        let check = try ChildProcess.run(URL(fileURLWithPath: executable), ["-n", file])
        #expect(check.status == 0, "\(shell) -n: \(check.standardError)")
        // And it completes: zsh's `compadd` (stubbed to print what it is offered; zsh itself keeps the words
        // that start with what was typed), fish's own `complete -C`.
        let program =
            shell == "zsh"
            ? "compdef() { :; }; compadd() { shift; print -l -- \"$@\"; }; _files() { print FILES; }; source '\(file)'; "
                + "words=(strata files l); CURRENT=3; _strata"
            : "source '\(file)'; complete -C 'strata fi'"
        let completed = try ChildProcess.run(URL(fileURLWithPath: executable), ["-c", program])
        let offered = completed.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(offered.contains(shell == "zsh" ? "ls" : "files"), "\(shell): \(completed.standardOutput)")
    }

    @Test(arguments: [
        (["fiels", "ls"], "unknown command 'fiels'; did you mean 'files'?"),
        (["files", "lst"], "unknown command 'lst' for 'strata files'; did you mean 'ls'?"),
        (["recrods", "list"], "did you mean 'records'?"),
        (["files", "ls", "--lnog"], "unknown option '--lnog' for 'strata files ls'; did you mean '--long'?"),
        (["files", "ls", "--roto", "x"], "unknown option '--roto' for 'strata files ls'; did you mean '--root'?"),
        (["inpsect"], "did you mean 'inspect'?"),
        (["--versoin"], "did you mean '--version'?"),
        (["completions", "bsah"], "did you mean 'bash'?"),
    ])
    func mistypesGetASuggestion(arguments: [String], message: String) throws {
        let result = try strata(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test(arguments: [["files", "ls", "-l"], ["xyz"], ["files", "zz"], ["defaults", "get", "k", "--q"]])
    func farMistypesGetNone(arguments: [String]) throws {
        let result = try strata(arguments)
        #expect(result.status == 2)
        #expect(!result.standardError.contains("did you mean"), "\(result.standardError)")
    }

    @Test func everyErrorNamesTheCommand() throws {
        let option = try strata(["files", "ls", "-l"])
        #expect(option.standardError.hasPrefix("strata: unknown option '-l' for 'strata files ls'\n"))
        #expect(option.standardError.contains("Run 'strata files ls --help' for usage."))
        let missing = try strata(["files", "export", "x"])
        #expect(missing.status == 2)
        #expect(missing.standardError.hasPrefix("strata files export: "), "\(missing.standardError)")
        let failure = try strata(["files", "rm", "nothing", "--root", directory.appending("none")])
        #expect(failure.status == 1)
        #expect(failure.standardError.hasPrefix("strata files rm: "), "\(failure.standardError)")
    }

    @Test func everyHelpPageNamesItsArguments() throws {
        for verb in try allVerbs() {
            let help = try strata(verb + ["--help"]).standardOutput
            let usage = String(help.split(separator: "\n")[0])
            let section = try #require(help.range(of: "\nArguments:\n"), "\(verb) has no ARGUMENTS section")
            let listed = help[section.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("  ") }
            // Every upper-case word of the usage line that is not an option's value is listed, with its meaning.
            for line in listed where line != "  (none)" {
                let parts = line.split(separator: " ", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: ["[", "]", "."])
                #expect(usage.contains(name), "\(verb): \(name) is not in \(usage)")
                #expect(parts.count == 2 && !parts[1].trimmingCharacters(in: .whitespaces).isEmpty, "\(verb): \(line)")
            }
        }
        let put = try strata(["files", "put", "--help"]).standardOutput
        #expect(put.contains("Arguments:\n  KEY "))
        #expect(put.contains("\n  FILE "))
        let ls = try strata(["files", "ls", "--help"]).standardOutput
        #expect(ls.contains("\n  [PREFIX] "))
        let list = try strata(["defaults", "list", "--help"]).standardOutput
        #expect(list.contains("Arguments:\n  (none)"))
    }

    /// The version policy: while CHANGELOG.md's newest section is `[Unreleased]`, the version is the one being
    /// prepared, `X.Y.Z-dev`, above every released version; once a release heads it, the version is that one.
    @Test func theVersionMatchesTheChangelog() throws {
        let printed = try strata(["--version"])
        #expect(printed.status == 0)
        let version = printed.standardOutput.trimmingCharacters(in: .newlines)
        #expect(try strata(["version"]).standardOutput == printed.standardOutput)
        #expect(try strata(["--help"]).standardOutput.hasPrefix("strata \(version):"))

        let changelog = try String(contentsOfFile: Self.packageRoot + "/CHANGELOG.md", encoding: .utf8)
        let headings = changelog.split(separator: "\n").filter { $0.hasPrefix("## [") }.map {
            String($0.dropFirst(4).prefix { $0 != "]" })
        }
        let top = try #require(headings.first, "CHANGELOG.md has no version heading")
        let released = headings.filter { $0 != "Unreleased" }
        if top == "Unreleased" {
            #expect(version.hasSuffix("-dev"), "an unreleased version is X.Y.Z-dev: \(version)")
            let base = Self.numbers(String(version.dropLast(4)))
            #expect(base.count == 3, "\(version)")
            if let newest = released.first {
                #expect(base.lexicographicallyPrecedes(Self.numbers(newest)) == false && base != Self.numbers(newest))
            }
        } else {
            #expect(version == top, "the newest release in CHANGELOG.md is \(top)")
        }
    }

    static func numbers(_ version: String) -> [Int] { version.split(separator: ".").compactMap { Int($0) } }

    /// The package's folder (this file is Tests/StrataCLITests/<name>.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
