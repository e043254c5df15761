import Foundation
import StrataTestSupport
import Testing

/// The `strata` executable, run as a subprocess: output, exit codes and error paths.
@Suite("strata CLI")
struct CommandLineToolTests {
    static func strata(_ arguments: String...) throws -> ChildProcess.Result {
        try ChildProcess.run(try TestExecutables.url(named: "strata"), arguments)
    }

    @Test(arguments: [
        (["--kind", "credential", "--size", "40"], "secrets", "sensitive-to-secrets", "Keychain"),
        (["--kind", "preference", "--size", "8"], "defaults", "preference-to-defaults", "UserDefaults"),
        (["--kind", "preference", "--size", "3MiB"], "files", "large-preference-to-files", "FileManager"),
        (["--kind", "preference", "--size", "10", "--sensitive"], "secrets", "sensitive-to-secrets", "Keychain"),
        (
            ["--kind", "file", "--size", "2MB", "--content-type", "application/pdf"], "files", "file-to-files",
            "FileManager"
        ),
        (
            ["--kind", "structured", "--size", "200", "--flat"], "defaults", "flat-structured-to-defaults",
            "UserDefaults"
        ),
        (
            ["--kind", "structured", "--size", "50M", "--min-os", "iOS17"], "records",
            "structured-to-records-swiftdata", "SwiftData"
        ),
        (
            ["--kind", "relational", "--size", "50M", "--min-os", "iOS16"], "records", "structured-to-records-coredata",
            "CoreData"
        ),
    ])
    func select(_ arguments: [String], _ tier: String, _ rule: String, _ apple: String) throws {
        let result = try ChildProcess.run(try TestExecutables.url(named: "strata"), ["select"] + arguments)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("tier:        \(tier)\n"))
        #expect(result.standardOutput.contains("rule:        \(rule)\n"))
        #expect(result.standardOutput.contains("apple:       \(apple)\n"))
        #expect(result.standardOutput.contains("why:"))
    }

    @Test func selectJSON() throws {
        let result = try Self.strata("select", "--kind=credential", "--size=1KiB", "--json")
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: String]
        #expect(object?["tier"] == "secrets")
        #expect(object?["rule"] == "sensitive-to-secrets")
    }

    @Test func selectTablePrintsEveryRule() throws {
        let result = try Self.strata("select", "--table")
        #expect(result.status == 0)
        for rule in [
            "sensitive-to-secrets", "file-to-files", "large-preference-to-files", "preference-to-defaults",
            "flat-structured-to-defaults", "structured-to-records-swiftdata", "structured-to-records-coredata",
        ] {
            #expect(result.standardOutput.contains(rule))
        }
    }

    @Test(arguments: [
        (["select", "--kind", "blob", "--size", "1"], "unknown kind 'blob'"),
        (["select", "--kind", "preference"], "'--size' is required"),
        (["select", "--kind", "preference", "--size", "lots"], "cannot read 'lots' as a size"),
        (
            ["select", "--kind", "preference", "--size", "1", "--min-os", "android"],
            "cannot read 'android' as a minimum OS"
        ),
        (["select", "--bogus"], "unknown option '--bogus'"),
        (["select", "--kind"], "'--kind' needs a value"),
        (["select", "--sensitive=yes", "--kind", "credential", "--size", "1"], "is a flag"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ])
    func usageErrorsExitTwoOnStderr(_ arguments: [String], _ message: String) throws {
        let result = try ChildProcess.run(try TestExecutables.url(named: "strata"), arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains(message), "stderr: \(result.standardError)")
        #expect(result.standardError.contains("--help"))
    }

    @Test(arguments: ["select", "demo", "inspect", "verify"])
    func everyVerbHasHelp(_ verb: String) throws {
        let result = try Self.strata(verb, "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: strata \(verb)"))
        #expect(result.standardOutput.contains("--help"))
    }

    @Test func overviewAndVersion() throws {
        let help = try Self.strata("--help")
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("select"))
        #expect(help.standardOutput.contains("demo"))
        let none = try ChildProcess.run(try TestExecutables.url(named: "strata"), [])
        #expect(none.status == 2)
        #expect(try Self.strata("--version").standardOutput == "0.1.0-dev\n")
    }

    @Test func demoRoutesEveryValueThroughTheSelector() throws {
        let root = try TemporaryDirectory()
        let result = try Self.strata("demo", "--root", root.appending("store"))
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let output = result.standardOutput
        for expected in [
            "-> defaults (UserDefaults, rule preference-to-defaults)",
            "-> secrets (Keychain, rule sensitive-to-secrets)",
            "-> records (CoreData, rule structured-to-records-coredata)", "-> files (FileManager, rule file-to-files)",
            "-> files (FileManager, rule large-preference-to-files)", "a second taker was refused",
            "'../escape' refused", "by the plist backend", "by the sodium backend", "by the sqlite backend",
            "by the filesystem backend", "stored 8 of 8 values; every tier answered.",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(FileManager.default.fileExists(atPath: root.appending("store")))
    }

    @Test func demoReportsSwiftDataForIOS17() throws {
        let result = try Self.strata("demo", "--min-os", "iOS17")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("-> records (SwiftData, rule structured-to-records-swiftdata)"))
    }

    @Test func demoOnARootThatIsAFileFails() throws {
        let root = try TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: root.appending("file"), contents: Data())
        let result = try Self.strata("demo", "--root", root.appending("file"))
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("strata demo: error: invalid-argument"))
        #expect(result.standardError.contains(root.appending("file")))
    }
}
