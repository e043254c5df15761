import Foundation
import StrataTestSupport
import Testing

/// Each command is a type whose options and arguments are declared once and read by the parser, the help page and
/// the completions alike: what a help page's usage line names is what the command declares.
@Suite("strata CLI: usage lines agree with the declarations")
struct CommandDeclarationTests {
    func strata(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(try TestExecutables.url(named: "strata"), arguments, environment: ["STRATA_ROOT": ""])
    }

    @Test func everyOptionOfAUsageLineIsDeclared() throws {
        let overview = try strata(["--help"]).standardOutput
        var verbs: [[String]] = []
        for name in CompletionAndHelpTests.commandNames(in: overview) {
            let help = try strata([name, "--help"]).standardOutput
            verbs +=
                help.contains("<command>")
                ? CompletionAndHelpTests.commandNames(in: help).map { [name, $0] } : [[name]]
        }
        #expect(verbs.count > 30, "\(verbs)")
        for verb in verbs {
            let help = try strata(verb + ["--help"]).standardOutput
            let usage = String(help.split(separator: "\n")[0])
            let declared = Set(CompletionAndHelpTests.optionNames(in: help))
            let named = usage.split(whereSeparator: { " [|]".contains($0) }).filter { $0.hasPrefix("--") }.map {
                String($0.prefix { $0 != "=" && $0 != "." })
            }
            for option in named {
                #expect(declared.contains(option), "\(verb): \(option) of '\(usage)' is not declared")
            }
        }
    }

    @Test func aCountOfArgumentsIsCheckedBeforeTheStoreIsLookedAt() throws {
        let result = try strata(["files", "get", "a", "b", "--root", "/nonexistent/strata-store"])
        #expect(result.status == 2)
        #expect(
            result.standardError.hasPrefix("strata files get: expected one KEY, got 2\n"), "\(result.standardError)")
    }

    @Test func aMistakeInAnOptionIsAUsageErrorBeforeTheStoreIsLookedAt() throws {
        for arguments in [
            ["defaults", "get", "k", "--suite", "../x", "--root", "/nonexistent/strata-store"],
            ["files", "export", "a", "--output", "a.txt", "--root", "/nonexistent/strata-store"],
            ["secrets", "get", "s", "a", "--key-file", "k", "--passphrase-file", "p", "--root", "/nonexistent/x"],
        ] {
            let result = try strata(arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
        }
    }
}
