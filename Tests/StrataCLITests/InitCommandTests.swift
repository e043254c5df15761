import Foundation
import StrataTestSupport
import Testing

/// `strata init ROOT` writes the store configuration; the tier verbs, `select` and `inspect` read it.
@Suite("strata CLI: init and the store configuration")
struct InitCommandTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-init") }

    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_RECORDS_URL": ""].merging(environment) { $1 })
    }

    @Test func initWritesTheFileAndEveryVerbReadsIt() throws {
        let written = try strata([
            "init", root, "--allow-sensitive-key", "showPasswordHint", "--defaults-value-limit", "1KiB",
        ])
        #expect(written.status == 0, "\(written.standardError)")
        #expect(written.standardOutput.hasSuffix("/strata.conf\n"))
        // The allowed name reaches `defaults set`; other credential-looking names are still refused.
        #expect(
            try strata(["defaults", "set", "showPasswordHint", "true", "--type", "bool", "--root", root, "--create"])
                .status == 0)
        let refused = try strata(["defaults", "set", "authToken", "x", "--root", root, "--create"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("allow-sensitive-key = NAME"), "\(refused.standardError)")
        // The value limit reaches the tier and the selector.
        let big = String(repeating: "x", count: 2000)
        #expect(try strata(["defaults", "set", "note", big, "--root", root, "--create"]).status == 1)
        let selected = try strata(["select", "--kind", "preference", "--size", "2000", "--root", root])
        #expect(
            selected.standardOutput.contains("rule:        large-preference-to-files"), "\(selected.standardOutput)")
        #expect(selected.standardOutput.contains("backend:     filesystem"), "\(selected.standardOutput)")
        // init again keeps what is there and applies the new options.
        #expect(try strata(["init", root, "--min-os", "iOS17"]).status == 0)
        let file = try String(contentsOfFile: root + "/strata.conf", encoding: .utf8)
        #expect(file.contains("allow-sensitive-key = showPasswordHint"))
        #expect(file.contains("value-limit = 1024"))
        #expect(file.contains("minimum-os = iOS 17"))
        let inspect = try strata(["inspect", root])
        #expect(inspect.standardOutput.contains("configuration: \(root)/strata.conf"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("defaults: plist; any thread"), "\(inspect.standardOutput)")
    }

    /// A URL is written as given, with a note when it holds a password; a variable's name keeps it out.
    @Test func aPasswordIsWrittenOnlyWhenGivenOne() throws {
        let withPassword = try strata(["init", root, "--records-url", "postgresql://app:hunter2@db.example/app"])
        #expect(withPassword.status == 0)
        #expect(withPassword.standardError.contains("--records-url-variable keeps it out"))
        let byVariable = try strata(
            ["init", root, "--records-url-variable", "APP_RECORDS_URL"],
            environment: ["APP_RECORDS_URL": "postgresql://app:hunter2@db.example/app"])
        #expect(byVariable.status == 0)
        let file = try String(contentsOfFile: root + "/strata.conf", encoding: .utf8)
        #expect(!file.contains("hunter2"), "\(file)")
        #expect(file.contains("url-variable = APP_RECORDS_URL"))
    }

    /// Bad options are refused before anything is created.
    @Test(arguments: [
        ([], "the store root is required"), (["a", "b"], "expected at most one ROOT, got 2"),
        (["ROOT", "--records-url", "mysql://x"], "postgresql://"),
        (["ROOT", "--records-sqlite", "--records-url-variable", "X"], "give one of"),
        (["ROOT", "--defaults-value-limit", "lots"], "cannot read 'lots' as a size"),
        (["ROOT", "--defaults-suite-budget", "0"], "more than 0 bytes"),
        (["ROOT", "--min-os", "android"], "cannot read 'android' as a minimum OS"),
    ])
    func badUsageIsRefused(_ arguments: [String], _ message: String) throws {
        let result = try strata(["init"] + arguments.map { $0 == "ROOT" ? root : $0 })
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    /// A configuration file that is bad is reported with its line by every verb, and never overwritten by init.
    @Test func aBadFileIsReportedWithItsLine() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("version = 1\n[defaults]\nvalue-limit = lots\n".utf8).write(
            to: URL(fileURLWithPath: root + "/strata.conf"))
        for arguments in [["defaults", "list", "--root", root], ["init", root]] {
            let result = try strata(arguments)
            #expect(result.status == 1)
            #expect(result.standardError.contains("line 3"), "\(result.standardError)")
        }
        let verify = try strata(["verify", root])
        #expect(verify.status == 1)
        #expect(verify.standardOutput.contains("strata.conf: corrupt"), "\(verify.standardOutput)")
    }

    /// A setting with no name (`= x`) crashed every verb that read the file (SIGILL, "Index out of range").
    @Test func aSettingWithNoNameIsReportedWithItsLine() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("version = 1\n[records]\n= x\n".utf8).write(to: URL(fileURLWithPath: root + "/strata.conf"))
        for arguments in [["verify", root], ["defaults", "list", "--root", root], ["init", root]] {
            let result = try strata(arguments)
            #expect(result.status == 1, "\(arguments): \(result.standardError.suffix(300))")
            #expect((result.standardOutput + result.standardError).contains("line 3"), "\(arguments)")
        }
    }
}
