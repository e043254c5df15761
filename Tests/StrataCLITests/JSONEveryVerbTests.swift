import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue 36 item 16: every verb that prints a result takes `--json` (one JSON document, camelCase members named as
/// the API names them); every other verb's help says what it prints instead, and the parser agrees with the help.
@Suite("strata CLI: --json on every verb that prints a result")
struct JSONEveryVerbTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-json-every")
        try RepositoryKey.createKeyFile(at: keyFile)
    }

    /// Runs `arguments` with `--json`, expects `status`, one line on standard output, and returns it parsed.
    func json(_ arguments: [String], runner: StrataRunner? = nil, status: Int32 = 0) throws -> [String: Any] {
        let result = try (runner ?? strata)(arguments + ["--json"])
        #expect(result.status == status, "\(arguments): \(result.standardError)")
        #expect(result.standardOutput.hasSuffix("\n") && result.standardOutput.split(separator: "\n").count == 1)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
            "\(arguments): \(result.standardOutput)")
    }

    func succeeds(_ arguments: [String], runner: StrataRunner? = nil, input: Data? = nil) throws {
        let result = try (runner ?? strata)(arguments, input: input)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
    }

    /// Every verb of the tool (`files ls`, `inspect`), from the help it prints.
    func allVerbs() throws -> [[String]] {
        let top = CompletionAndHelpTests.commandNames(in: try strata(["--help"]).standardOutput)
        var verbs: [[String]] = []
        for name in top {
            let help = try strata([name, "--help"]).standardOutput
            verbs +=
                help.contains("<command>")
                ? CompletionAndHelpTests.commandNames(in: help).map { [name, $0] } : [[name]]
        }
        return verbs
    }

    /// The help of each verb either lists `--json` or says what the verb prints instead (`Output: …`), never both;
    /// and the parser takes `--json` exactly where the help lists it.
    @Test func helpAndParserAgreeOnJSON() throws {
        let verbs = try allVerbs()
        #expect(verbs.count > 40)
        var withoutJSON: [String] = []
        for verb in verbs {
            let help = try strata(verb + ["--help"]).standardOutput
            let options = try #require(help.range(of: "\nOptions:")).upperBound
            let listsJSON = help[options...].contains("\n  --json ")
            let saysOutput = help.contains("\nOutput: ")
            #expect(
                listsJSON != saysOutput,
                "strata \(verb.joined(separator: " ")): --json \(listsJSON), Output \(saysOutput)")
            if !listsJSON { withoutJSON.append(verb.joined(separator: " ")) }
            let parsed = try strata(verb + ["--json"]).standardError
            #expect(
                parsed.contains("unknown option '--json'") == !listsJSON,
                "strata \(verb.joined(separator: " ")) --json: \(parsed)")
        }
        // What prints no result, or content that is not JSON (a value's bytes, a plist, a script, the demo).
        #expect(
            withoutJSON.sorted() == [
                "completions", "defaults delete", "defaults export", "defaults set", "demo", "files get", "files put",
                "files rm", "get", "rm", "secrets delete", "secrets set",
            ])
    }

    /// The verbs the help says print nothing print nothing when they succeed.
    @Test func verbsThatPrintNothing() throws {
        let note = directory.appending("note.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: note))
        #expect(try strata(["put", "k", note, "--kind", "preference", "--root", root, "--create"]).status == 0)
        for verb in [
            ["defaults", "set", "theme", "dark"], ["defaults", "delete", "theme"],
            ["files", "put", "a.txt", note, "--create"], ["files", "rm", "a.txt"],
            ["rm", "k"],
        ] {
            let result = try strata(verb + ["--root", root])
            #expect(result.status == 0 && result.standardOutput.isEmpty, "\(verb): \(result.standardError)")
        }
        let set = try strata(["secrets", "set", "api", "alice", "--root", root], input: Data("s".utf8))
        #expect(set.status == 0 && set.standardOutput.isEmpty, "\(set.standardError)")
        let delete = try strata(["secrets", "delete", "api", "alice", "--root", root])
        #expect(delete.status == 0 && delete.standardOutput.isEmpty, "\(delete.standardError)")
    }

    @Test func filesExportAndImport() throws {
        let note = directory.appending("note.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: note))
        try succeeds(["files", "put", "notes/a.txt", note, "--root", root, "--create"])
        try succeeds(["files", "put", "notes/b.txt", note, "--root", root])
        let zip = directory.appending("notes.zip")
        let exported = try json(["files", "export", "notes/", "--output", zip, "--root", root])
        #expect(exported["output"] as? String == zip && exported["entries"] as? Int == 2)
        #expect((exported["bytes"] as? Int ?? 0) > 10)
        let gz = directory.appending("a.gz")
        let gzipped = try json(["files", "export", "notes/a.txt", "--output", gz, "--root", root])
        #expect(gzipped["entries"] as? Int == 1 && gzipped["output"] as? String == gz)

        let other = directory.appending("other")
        let imported = try json(["files", "import", zip, "--into", "copy/", "--root", other, "--create"])
        #expect(imported["imported"] as? Int == 2)
        #expect((imported["keys"] as? [String])?.sorted() == ["copy/notes/a.txt", "copy/notes/b.txt"])
        let one = try json(["files", "import", gz, "--key", "one.txt", "--root", other])
        #expect(one["imported"] as? Int == 1 && one["keys"] as? [String] == ["one.txt"])
    }

    @Test func defaultsAndRecordsImportExport() throws {
        try succeeds(["defaults", "set", "theme", "dark", "--root", root, "--create"])
        try succeeds(["defaults", "set", "count", "3", "--root", root])
        let plist = directory.appending("suite.plist")
        try succeeds(["defaults", "export", "--output", plist, "--root", root])
        let other = directory.appending("other")
        #expect(try json(["defaults", "import", plist, "--root", other, "--create"])["imported"] as? Int == 2)

        let people = directory.appending("people.jsonl")
        try Data((#"{"id":"p1"}"# + "\n" + #"{"id":"p2"}"# + "\n").utf8).write(to: URL(fileURLWithPath: people))
        let imported = try json(["records", "import", "people", people, "--root", root])
        #expect(imported["collection"] as? String == "people" && imported["imported"] as? Int == 2)
        let out = directory.appending("out.jsonl")
        let exported = try json(["records", "export", "people", "--output", out, "--root", root])
        #expect(exported["exported"] as? Int == 2 && exported["output"] as? String == out)
        #expect(exported["collection"] as? String == "people")
    }

    @Test func secretsPasswdAndRotate() throws {
        try succeeds(["secrets", "set", "api", "alice", "--root", root, "--create"], input: Data("s3cr3t".utf8))
        let passwd = try json(
            ["secrets", "passwd", "--root", root], runner: strata.with("STRATA_NEW_PASSPHRASE", "pw2"))
        #expect(passwd["itemCount"] as? Int == 1)
        let rotated = try json(["secrets", "rotate", "--root", root], runner: strata.with("STRATA_PASSPHRASE", "pw2"))
        #expect(rotated["resealed"] as? Int == 1 && (rotated["unreadable"] as? [Any])?.isEmpty == true)
    }

    @Test func initSelectLintVersion() throws {
        let initialized = try json(["init", root])
        #expect(initialized["root"] as? String == root)
        #expect(initialized["configuration"] as? String == root + "/strata.conf")
        let selection = try json(["select", "--kind", "preference", "--size", "10"])
        #expect(selection["tier"] as? String == "defaults" && selection["rule"] is String)
        #expect(try strata(["select", "--table", "--json"]).status == 2)
        let source = directory.appending("App.swift")
        try Data("let e = UserDefaults.standard\n".utf8).write(to: URL(fileURLWithPath: source))
        let findings = try #require(try json(["lint", source])["findings"] as? [[String: Any]])
        #expect(findings.count == 1 && findings[0]["file"] as? String == source && findings[0]["line"] as? Int == 1)
        #expect(findings[0]["rule"] is String && findings[0]["message"] is String)
        #expect(
            try json(["version"])["version"] as? String
                == (try strata(["--version"]).standardOutput.dropLast()).description)
    }

    @Test func backupRestoreAndKeys() throws {
        let storage = try Storage(root: root)
        try storage.set("dark", for: "theme")
        try storage.put(
            Data(repeating: 1, count: 1000), for: "notes/1", as: DataDescriptor(kind: .file, estimatedSize: 1000))
        try storage.backend(for: .defaults).flush()
        let repoOptions = ["--repo", repo, "--repo-key-file", keyFile]
        let backup = try json(["backup", root, "--init"] + repoOptions)
        let id = try #require(backup["id"] as? String)
        // One name for each number: `totalSize` as SnapshotSummary names it; `size`, deprecated, the same.
        #expect((backup["totalSize"] as? Int ?? 0) > 1000 && backup["size"] as? Int == backup["totalSize"] as? Int)
        let listed = try strata(["snapshots", "--json"] + repoOptions)
        let snapshots = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(snapshots.first?["totalSize"] as? Int == backup["totalSize"] as? Int)

        let restored = directory.appending("restored")
        let whole = try json(["restore", id, "--root", restored] + repoOptions)
        #expect(whole["root"] as? String == restored && whole["snapshot"] as? String == id)
        #expect((whole["fileCount"] as? Int ?? 0) > 0 && (whole["verifiedKeys"] as? Int ?? 0) >= 2)
        #expect((whole["missingKeys"] as? [String]) == [] && (whole["uncheckedKeys"] as? [String]) == [])
        let one = try json(["restore", id, "--root", root, "--key", "theme"] + repoOptions)
        #expect(one["restoredKeys"] as? [String] == ["theme"])
        let some = try json(["restore", id, "--root", root, "--prefix", "notes/"] + repoOptions)
        #expect(some["restoredKeys"] as? [String] == ["notes/1"])

        let second = directory.appending("second.key")
        let added = try json(
            ["key", "add", "--new-key-file", second, "--create-key-file"] + repoOptions)
        let addedID = try #require(added["id"] as? String)
        let third = directory.appending("third.key")
        let changed = try json(
            ["key", "passwd", "--repo", repo, "--repo-key-file", second, "--new-key-file", third, "--create-key-file"])
        #expect((changed["id"] as? String).map { $0 != addedID } == true)
        // The first key's slot remains beside the new one: removed by a prefix of its id, printed as given.
        let thirdOptions = ["--repo", repo, "--repo-key-file", third]
        let slots = try strata(["key", "list", "--json"] + thirdOptions).standardOutput
        let list = try #require(try JSONSerialization.jsonObject(with: Data(slots.utf8)) as? [[String: Any]])
        let first = try #require(list.first { $0["current"] as? Bool == false }?["id"] as? String)
        let removed = try json(["key", "remove", String(first.prefix(8))] + thirdOptions)
        #expect(removed["removed"] as? String == String(first.prefix(8)))
    }
}
