import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 8: `--json` on every read verb prints one JSON document of a documented shape
/// (Documentation/CLI.md), parsed here as a script would.
@Suite("strata CLI: --json on every read verb")
struct JSONOutputTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-json")
        let people = directory.appending("people.jsonl")
        let lines = #"{"id":"p1","name":"Ada","age":36}"# + "\n" + #"{"id":"p2","name":"Bo","age":3}"# + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: people))
        let note = directory.appending("note.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: note))
        for verb in [
            ["defaults", "set", "launchCount", "5", "--type", "int"], ["defaults", "set", "theme", "dark"],
            ["records", "import", "people", people], ["files", "put", "notes/a.txt", note],
        ] {
            #expect(try strata(verb + ["--root", root, "--create"]).status == 0)
        }
        #expect(try strata(["secrets", "set", "api", "alice", "--root", root], input: Data("s3cr3t".utf8)).status == 0)
    }

    /// Runs a verb with `--json` and parses what it printed.
    func json(_ verb: [String], status: Int32 = 0) throws -> Any {
        let result = try strata(verb + ["--root", root, "--json"])
        #expect(result.status == status, "\(verb): \(result.standardError)")
        #expect(result.standardOutput.hasSuffix("\n") && result.standardOutput.split(separator: "\n").count == 1)
        return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
    }

    func object(_ verb: [String], status: Int32 = 0) throws -> [String: Any] {
        try #require(try json(verb, status: status) as? [String: Any])
    }

    @Test func defaults() throws {
        let entry = try object(["defaults", "get", "launchCount"])
        #expect(entry["key"] as? String == "launchCount" && entry["type"] as? String == "integer")
        #expect(entry["value"] as? Int == 5)
        let entries = try #require(try object(["defaults", "list"])["entries"] as? [[String: Any]])
        #expect(entries.map { $0["key"] as? String } == ["launchCount", "theme"])
        #expect(entries[1]["value"] as? String == "dark")
    }

    @Test func secretsNeverShowAValueUnlessAsked() throws {
        let items = try #require(try object(["secrets", "list"])["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items[0]["service"] as? String == "api" && items[0]["account"] as? String == "alice")
        #expect(items[0]["size"] as? Int == 6 && items[0]["value"] == nil)
        let hidden = try object(["secrets", "get", "api", "alice"])
        #expect(hidden["value"] == nil && hidden["accessibility"] as? String == "whenUnlocked")
        #expect(try object(["secrets", "get", "api", "alice", "--show"])["value"] as? String == "s3cr3t")
    }

    @Test func records() throws {
        let collections = try #require(try object(["records", "list"])["collections"] as? [[String: Any]])
        #expect(collections.first?["name"] as? String == "people" && collections.first?["count"] as? Int == 2)
        let found = try #require(try json(["records", "query", "people", "--where", "age>=18"]) as? [[String: Any]])
        #expect(found.map { $0["id"] as? String } == ["p1"])
        #expect(try object(["records", "get", "people", "p2"])["name"] as? String == "Bo")
        #expect(try strata(["records", "get", "people", "p9", "--root", root]).status == 1)
        #expect(try object(["records", "verify"])["ok"] as? Bool == true)
    }

    @Test func files() throws {
        let files = try #require(try object(["files", "ls"])["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files[0]["key"] as? String == "notes/a.txt" && files[0]["size"] as? Int == 5)
        #expect((files[0]["checksum"] as? String)?.count == 8)
        let stat = try object(["files", "stat", "notes/a.txt"])
        #expect(stat["contentType"] as? String == "text/plain" && stat["modified"] is String)
        #expect(try object(["files", "verify"])["ok"] as? Bool == true)
    }

    @Test func inspectAndVerify() throws {
        let summary = try object(["inspect"])
        #expect(summary["root"] as? String == root)
        #expect((summary["defaults"] as? [[String: Any]])?.first?["keys"] as? Int == 2)
        #expect((summary["secrets"] as? [[String: Any]])?.first?["items"] as? Int == 1)
        let records = try #require(summary["records"] as? [String: Any])
        #expect(records["backend"] as? String == "sqlite")
        #expect((summary["files"] as? [String: Any])?["count"] as? Int == 1)
        #expect((summary["backends"] as? [[String: Any]])?.count == 4)
        let verdict = try object(["verify"])
        #expect(verdict["ok"] as? Bool == true && (verdict["problems"] as? [Any])?.isEmpty == true)
        // A damaged file: the verdict says so, and the exit status is still 1.
        try Data("HELLO".utf8).write(to: URL(fileURLWithPath: root + "/files/notes/a.txt"))
        let damaged = try object(["verify"], status: 1)
        #expect(damaged["ok"] as? Bool == false && (damaged["problems"] as? [Any])?.count == 1)
        #expect(try object(["files", "verify"], status: 1)["ok"] as? Bool == false)
    }

    @Test func pythonReadsIt() throws {
        let output = directory.appending("inspect.json")
        try Data(try strata(["inspect", "--root", root, "--json"]).standardOutput.utf8)
            .write(to: URL(fileURLWithPath: output))
        let python = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "json.tool", output])
        #expect(python.status == 0, "\(python.standardError)")
        #expect(python.standardOutput.contains(#""root": "\#(root)""#))
    }
}
