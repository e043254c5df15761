import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 4: every verb finds its store the same way: `--root`, the environment's `STRATA_ROOT`, or (for
/// `inspect` and `verify`, as before) a positional root; `--root` may also come before the verb.
@Suite("strata CLI: one way to name the store root")
struct StoreRootOptionTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-root")
        #expect(try strata(["init", root]).status == 0)
        #expect(try strata(["defaults", "set", "theme", "dark", "--root", root]).status == 0)
    }

    @Test(arguments: ["inspect", "verify"])
    func inspectAndVerifyTakeTheRootEveryWay(verb: String) throws {
        let expected = verb == "inspect" ? "store: \(root)" : "ok: every tier of \(root) is sound"
        for result in [
            try strata([verb, root]), try strata([verb, "--root", root]), try strata([verb, "--root=\(root)"]),
            try strata.with("STRATA_ROOT", root)([verb]), try strata(["--root", root, verb]),
        ] {
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains(expected), "\(result.standardOutput)")
        }
        let twice = try strata([verb, root, "--root", directory.appending("other")])
        #expect(twice.status == 2)
        #expect(twice.standardError.contains("the root is given twice"))
        let missing = try strata([verb])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("'--root DIR' is required"))
    }

    @Test func rootBeforeTheVerbReachesEveryGroupVerb() throws {
        #expect(try strata(["--root", root, "defaults", "get", "theme"]).standardOutput == "dark\n")
        #expect(try strata(["--root=\(root)", "defaults", "list"]).standardOutput == "theme = dark\n")
        let file = directory.appending("note.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["--root", root, "files", "put", "notes/a.txt", file]).status == 0)
        #expect(try strata(["--root", root, "files", "ls"]).standardOutput == "notes/a.txt\n")
        // The verb's own --root wins over one given before it.
        let other = try strata(["--root", directory.appending("nowhere"), "files", "ls", "--root", root])
        #expect(other.standardOutput == "notes/a.txt\n")
        // A verb without a root says so in its own words.
        let demo = try strata(["--root", root, "lint", "."])
        #expect(demo.status == 2)
        #expect(demo.standardError.contains("unknown option '--root'"))
    }
}
