import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 5: a read verb never creates a folder or a file, whatever it is pointed at; `inspect` and
/// `verify` on a folder that is not a store say so.
@Suite("strata CLI: read verbs change nothing")
struct ReadVerbsChangeNothingTests {
    let directory: TemporaryDirectory
    let strata = StrataRunner()

    init() throws { directory = try TemporaryDirectory(prefix: "strata-read") }

    /// Every read verb, without its root.
    static let readVerbs: [[String]] = [
        ["defaults", "list"], ["defaults", "get", "theme"], ["defaults", "export"], ["files", "ls"],
        ["files", "get", "notes/a.txt"], ["files", "verify"], ["records", "list"], ["records", "keys"],
        ["records", "query", "people"],
        ["records", "verify"], ["secrets", "list"], ["secrets", "get", "api", "alice"], ["inspect"], ["verify"],
    ]

    @Test(arguments: readVerbs)
    func aMissingRootIsNotFoundAndStaysMissing(verb: [String]) throws {
        let missing = directory.appending("typo/store")
        let result = try strata(verb + ["--root", missing])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardError.contains("not-found"), "\(result.standardError)")
        #expect(result.standardError.contains(missing))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("typo")))
    }

    @Test(arguments: readVerbs)
    func anEmptyFolderIsNotAStoreAndStaysEmpty(verb: [String]) throws {
        let empty = directory.appending("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let result = try strata(verb + ["--root", empty])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardError.contains("not-a-store"), "\(result.standardError)")
        #expect(result.standardError.contains("the folder is not a Strata store"))
        #expect(FolderTree(empty).entries.isEmpty, "\(FolderTree(empty))")
    }

    @Test(arguments: readVerbs)
    func aStoreWithOnlyItsConfigurationIsLeftAsItWas(verb: [String]) throws {
        let root = directory.appending("store")
        #expect(try strata(["init", root]).status == 0)
        let before = FolderTree(root)
        _ = try strata(verb + ["--root", root])
        #expect(FolderTree(root) == before, "\(FolderTree(root))")
    }

    @Test func aFullStoreIsLeftByteForByteAsItWas() throws {
        let root = directory.appending("store")
        let file = directory.appending("input")
        try Data(#"{"id":"p1","name":"Ada"}"#.utf8).write(to: URL(fileURLWithPath: file))
        for verb in [
            ["defaults", "set", "theme", "dark"], ["files", "put", "notes/a.txt", file],
            ["records", "import", "people", file],
        ] {
            let result = try strata(verb + ["--root", root, "--create"])
            #expect(result.status == 0, "\(verb): \(result.standardError)")
        }
        #expect(try strata(["secrets", "set", "api", "alice", "--root", root], input: Data("v".utf8)).status == 0)
        let before = FolderTree(root)
        for verb in Self.readVerbs {
            let result = try strata(verb + ["--root", root])
            #expect(result.status == 0, "\(verb): \(result.standardError)")
            #expect(FolderTree(root) == before, "\(verb) changed the store: \(FolderTree(root))")
        }
    }
}
