import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 5: a write verb never makes a new store by accident: a root that does not exist, or a folder
/// that is not a store, needs `--create`.
@Suite("strata CLI: a new store needs --create")
struct CreateOptionTests {
    let directory: TemporaryDirectory
    let strata = StrataRunner()
    let input: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-create")
        input = directory.appending("input")
        try Data(#"{"id":"p1","name":"Ada"}"#.utf8).write(to: URL(fileURLWithPath: input))
    }

    /// Every verb that can make a store, without its root; the last element is its standard input.
    var writeVerbs: [[String]] {
        [
            ["defaults", "set", "theme", "dark"], ["defaults", "import", plist], ["files", "put", "a.txt", input],
            ["records", "import", "people", input], ["secrets", "set", "api", "alice"],
        ]
    }

    var plist: String { directory.appending("suite.plist") }

    func writePlist() throws {
        let xml =
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>k</key><string>v</string></dict></plist>"#
        try Data(xml.utf8).write(to: URL(fileURLWithPath: plist))
    }

    @Test func aMissingRootNeedsCreate() throws {
        try writePlist()
        for verb in writeVerbs {
            let missing = directory.appending("typo")
            let refused = try strata(verb + ["--root", missing], input: Data("v".utf8))
            #expect(refused.status == 1, "\(verb)")
            #expect(refused.standardError.contains("not-found"), "\(verb): \(refused.standardError)")
            #expect(refused.standardError.contains(missing) && refused.standardError.contains("pass --create"))
            #expect(!FileManager.default.fileExists(atPath: missing), "\(verb) made the store")
            let made = try strata(verb + ["--root", missing, "--create"], input: Data("v".utf8))
            #expect(made.status == 0, "\(verb): \(made.standardError)")
            try FileManager.default.removeItem(atPath: missing)
        }
    }

    @Test func aFolderThatIsNotAStoreNeedsCreate() throws {
        try writePlist()
        let folder = directory.appending("Documents")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/letter.txt"))
        let before = FolderTree(folder)
        for verb in writeVerbs {
            let refused = try strata(verb + ["--root", folder], input: Data("v".utf8))
            #expect(refused.status == 1, "\(verb)")
            #expect(refused.standardError.contains("not-a-store"), "\(verb): \(refused.standardError)")
            #expect(refused.standardError.contains("pass --create"))
            #expect(FolderTree(folder) == before, "\(verb) wrote into the folder")
        }
        #expect(try strata(["defaults", "set", "k", "v", "--root", folder, "--create"]).status == 0)
        // Now a store: later writes need nothing more.
        #expect(try strata(["files", "put", "a.txt", input, "--root", folder]).status == 0)
    }

    @Test func initAndTheDemoStillCreate() throws {
        #expect(try strata(["init", directory.appending("new")]).status == 0)
        #expect(try strata(["defaults", "set", "k", "v", "--root", directory.appending("new")]).status == 0)
        let demo = try strata(["demo", "--root", directory.appending("demo")])
        #expect(demo.status == 0, "\(demo.standardError)")
    }

    @Test func readVerbsDoNotTakeCreate() throws {
        let result = try strata(["defaults", "list", "--root", directory.appending("x"), "--create"])
        #expect(result.status == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("x")))
    }
}
