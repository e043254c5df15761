import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// The tool's small betrayals: a value that looks like an option, an option given twice, an argument that is not
/// UTF-8, a missing collection, a huge key in a message, and errors that named the Swift API instead of the tool.
@Suite("strata CLI: papercuts")
struct CLIPapercutTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()
    init() throws { directory = try TemporaryDirectory(prefix: "strata-papercuts") }

    /// After the key, `defaults set`'s value is the value whatever it looks like: never a request for help.
    @Test(arguments: [["-h"], ["--help"], ["-5", "--type", "int"], ["--", "-x"]])
    func aValueThatLooksLikeAnOptionIsTheValue(_ value: [String]) throws {
        let options = ["--root", root, "--create"]
        let set = try strata(
            value[0] == "--" ? ["defaults", "set", "k"] + options + value : ["defaults", "set", "k"] + value + options)
        #expect(set.status == 0, "\(set.standardOutput)\(set.standardError)")
        #expect(!set.standardOutput.contains("Usage:"))
        let expected = value[0] == "--" ? value[1] : value[0]
        #expect(try strata(["defaults", "get", "k", "--root", root]).standardOutput == expected + "\n")
    }

    @Test func anOptionGivenTwiceWithTwoValuesIsAUsageError() throws {
        #expect(try strata(["defaults", "set", "k", "v", "--root", root, "--create"]).status == 0)
        let twice = try strata(["defaults", "list", "--root", root, "--root", directory.appending("other")])
        #expect(twice.status == 2)
        #expect(twice.standardError.contains("'--root' is given twice"), "\(twice.standardError)")
        let before = try strata(["--root", directory.appending("other"), "defaults", "list", "--root", root])
        #expect(before.status == 2 && before.standardError.contains("given twice"))
        #expect(try strata(["--root", root, "defaults", "list", "--root", root]).status == 0)
        // Repeatable options stay repeatable.
        #expect(
            try strata(["records", "query", "c", "--where", "a=1", "--where", "b=2", "--root", root]).standardError
                .contains("given twice") == false)
    }

    @Test func anArgumentThatIsNotUTF8IsRefused() throws {
        // Through the shell, so that the child receives the raw byte 0xFF.
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                "'\(try TestExecutables.url(named: "strata").path)' defaults set \"$(printf 'k\\377')\" v --root '\(root)' --create",
            ],
            environment: ["STRATA_ROOT": ""])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("argument 3 is not UTF-8"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: root + "/defaults"))
    }

    @Test func exportingAMissingCollectionIsNotFound() throws {
        #expect(try strata(["defaults", "set", "k", "v", "--root", root, "--create"]).status == 0)
        let file = directory.appending("p.jsonl")
        try Data(#"{"id":"1"}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["records", "import", "people", file, "--root", root]).status == 0)
        let result = try strata(["records", "export", "nosuch", "--output", directory.appending("o"), "--root", root])
        #expect(result.status == 1 && result.standardError.contains("not-found"), "\(result.standardError)")
    }

    /// A catalog key of 60,000 bytes (a hostile log) is named in a message by its start, its end and its length.
    @Test func aHugeKeyIsShortenedInMessages() throws {
        let storage = try Storage(root: root)
        let huge = String(repeating: "k", count: 60_000)
        let location = StorageLocation(
            key: huge, tier: .files, backend: "filesystem", ruleID: "file-to-files", kind: .file, contentType: nil,
            size: 1, modified: Date())
        try storage.catalog.record([.set(location)], durable: true)
        try storage.catalog.record([.intent(key: huge, from: nil, to: .files)], durable: true)
        let result = try strata(["verify", root, "--allow-unchecked"])
        let longest = (result.standardOutput + result.standardError).split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest < 2_000, "a line of \(longest) bytes")
        #expect((result.standardOutput + result.standardError).contains("(60000 bytes)"))
    }

    /// Errors whose fix the Swift API words with its own arguments are worded with the tool's options instead.
    @Test func errorsNameTheToolsOptions() throws {
        let keyFile = directory.appending("secrets.key")
        #expect(
            FileManager.default.createFile(
                atPath: keyFile, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o600]))
        let storage = try Storage(root: root, secretsKey: .keyFile(keyFile))
        try storage.set(Secret("tok"), for: "session/rt")
        try storage.put(Data("pdf".utf8), for: "report", as: DataDescriptor(kind: .file, estimatedSize: 3))
        let cases: [([String], String, String)] = [
            (["get", "session/rt", "--root", root], "--secrets-key-file", "secretsKey:"),
            (
                ["mv", "session/rt", "defaults", "--root", root, "--key-file", keyFile], "--allow-plaintext",
                "allowingPlaintext"
            ),
            (["defaults", "set", "report", "x", "--root", root], "strata mv KEY defaults", "storage.move"),
            (["defaults", "set", "apiToken", "x", "--root", root], "allow-sensitive-key", "DataDescriptor"),
        ]
        for (arguments, tool, api) in cases {
            let result = try StrataRunner(environment: ["STRATA_ROOT": "", "STRATA_SECRETS_KEY": ""])(arguments)
            #expect(result.status == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(tool), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains(api), "\(arguments): \(result.standardError)")
        }
    }
}
