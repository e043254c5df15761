import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 5: mistakes in how a verb is called fail, with a usage error (exit 2) that names the mistake, or a
/// typed failure (exit 1); none succeeds silently.
@Suite("strata CLI: mistakes fail")
struct CLIMistakeTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-mistake")
        let file = directory.appending("a.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["files", "put", "docs/a.txt", file, "--root", root, "--create"]).status == 0)
        #expect(try strata(["files", "put", "docs/b.txt", file, "--root", root]).status == 0)
    }

    /// (`doc` matches `docs/a.txt` now that a prefix is a plain string prefix; `docs-old` matches nothing.)
    @Test(arguments: ["nothing", "docs/none.txt", "docs-old"])
    func exportingWhatDoesNotExistWritesNoArchive(prefix: String) throws {
        for output in [directory.appending("n.zip"), directory.appending("n.gz")] {
            let result = try strata(["files", "export", prefix, "--output", output, "--root", root])
            #expect(result.status == 1, "\(result.standardOutput)")
            #expect(result.standardError.contains("not-found"), "\(result.standardError)")
            #expect(result.standardError.contains(prefix))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // One prefix that matches nothing among others that match is still an error.
        let zip = directory.appending("some.zip")
        let mixed = try strata(["files", "export", "docs", prefix, "--output", zip, "--root", root])
        #expect(mixed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: zip))
    }

    @Test func exportingAnEmptyStoreWritesNoArchive() throws {
        let empty = directory.appending("empty")
        #expect(try strata(["init", empty]).status == 0)
        let output = directory.appending("all.zip")
        let result = try strata(["files", "export", "--output", output, "--root", empty])
        #expect(result.status == 1)
        #expect(result.standardError.contains("not-found"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A mistyped `--suite` on a read verb names the suites the store has; it used to read as an empty suite.
    @Test(arguments: [["list"], ["get", "theme"], ["export"], ["delete", "theme"]])
    func aSuiteThatDoesNotExistIsAnErrorNamingTheSuites(verb: [String]) throws {
        #expect(try strata(["defaults", "set", "theme", "dark", "--root", root, "--suite", "app"]).status == 0)
        let result = try strata(["defaults"] + verb + ["--root", root, "--suite", "apq"])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardError.contains("not-found"), "\(result.standardError)")
        #expect(result.standardError.contains("no suite named 'apq'"), "\(result.standardError)")
        #expect(result.standardError.contains("Its suites: app"), "\(result.standardError)")
        #expect(try strata(["defaults", "get", "theme", "--root", root, "--suite", "app"]).standardOutput == "dark\n")
        // The configured suite, never written, still reads empty.
        #expect(try strata(["defaults", "list", "--root", root]).status == 0)
    }

    @Test(arguments: ["docs", "docs/"])
    func exportingAFolderToGzipSaysUseZip(folder: String) throws {
        let output = directory.appending("docs.gz")
        let result = try strata(["files", "export", folder, "--output", output, "--root", root])
        #expect(result.status == 2)
        #expect(result.standardError.contains("use .zip"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    func writePeople() throws {
        let lines = [
            #"{"id":"1","folderID":"work","n":1}"#, #"{"id":"2","folderID":"home","n":2}"#,
            #"{"id":"3","folderID":"=work","n":3}"#, #"{"id":"4","folderID":"","n":4}"#,
        ]
        let file = directory.appending("people.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["records", "import", "people", file, "--root", root]).status == 0)
    }

    func ids(_ conditions: [String]) throws -> [String] {
        let result = try strata(
            ["records", "query", "people", "--root", root, "--sort", "n"] + conditions.flatMap { ["--where", $0] })
        #expect(result.status == 0, "\(conditions): \(result.standardError)")
        return result.standardOutput.split(separator: "\n").map {
            let object = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            return object?["id"] as? String ?? "?"
        }
    }

    @Test func whereReadsDoubleEqualsAsEquality() throws {
        try writePeople()
        #expect(try ids(["folderID==work"]) == ["1"])
        #expect(try ids(["folderID=work"]) == ["1"])
        #expect(try ids(["folderID!=work"]) == ["2", "3", "4"])
        #expect(try ids(["n>=2", "n<4"]) == ["2", "3"])
        #expect(try ids([#"folderID="=work""#]) == ["3"])
        #expect(try ids([#"folderID=="""#]) == ["4"])
        #expect(try ids(["folderID^=wo"]) == ["1"])
    }

    @Test(arguments: ["a=", "=b", "==", "n=>3", "n<>3", "n===3", "n", "n~3", "n=!3", #"a="x"#])
    func whereRejectsWhatItCannotRead(clause: String) throws {
        try writePeople()
        let result = try strata(["records", "query", "people", "--root", root, "--where", clause])
        #expect(result.status == 2, "\(clause): \(result.standardOutput)")
        #expect(result.standardError.contains("'\(clause)'"), "\(result.standardError)")
    }

    @Test(arguments: [
        (["defaults", "get", "a", "b"], "expected one KEY, got 2"),
        (["defaults", "set", "a"], "expected 2 arguments, KEY VALUE, got 1"),
        (["defaults", "list", "x"], "expected no arguments, got 1"),
        (["files", "ls", "a", "b"], "expected at most one PREFIX, got 2"),
        (["files", "get", "a", "b", "c"], "expected one KEY, got 3"),
        (["secrets", "get", "a"], "expected 2 arguments, SERVICE ACCOUNT, got 1"),
        (["records", "query"], "expected one COLLECTION, got 0"),
        (["inspect", "a", "b"], "expected at most one ROOT, got 2"),
        (["verify", "a", "b"], "expected at most one ROOT, got 2"),
    ])
    func surplusAndMissingArgumentsAreCounted(arguments: [String], message: String) throws {
        let result = try strata(
            arguments + (arguments[0] == "inspect" || arguments[0] == "verify" ? [] : ["--root", root]))
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}
