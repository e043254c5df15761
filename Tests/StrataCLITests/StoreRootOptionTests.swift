import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 4: every verb finds its store the same way: `--root`, the environment's `STRATA_ROOT`, or (for
/// `inspect`, `verify`, `init` and `backup`) a positional root; `--root` may also come before the verb.
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

    /// `init` and `backup` take their root as the other verbs do: as their argument, as `--root` (after or before
    /// the verb) or from `STRATA_ROOT`; given twice it is refused, and none is a usage error.
    @Test func initAndBackupTakeTheRootEveryWay() throws {
        let made = directory.appending("made")
        for (index, result) in [
            try strata(["init", made + "-0"]), try strata(["init", "--root", made + "-1"]),
            try strata(["--root", made + "-2", "init"]), try strata.with("STRATA_ROOT", made + "-3")(["init"]),
        ].enumerated() {
            #expect(result.status == 0, "\(result.standardError)")
            #expect(FileManager.default.fileExists(atPath: made + "-\(index)/strata.conf"))
        }
        let twice = try strata(["init", made + "-0", "--root", made + "-1"])
        #expect(twice.status == 2 && twice.standardError.contains("the root is given twice"), "\(twice.standardError)")
        let none = try strata(["init"])
        #expect(none.status == 2 && none.standardError.contains("the store root is required"), "\(none.standardError)")

        let repo = directory.appending("repo")
        let backup = strata.with("STRATA_BACKUP_PASSPHRASE", "correct horse")
        for result in [
            try backup(["backup", root, "--repo", repo, "--init"]),
            try backup(["backup", "--root", root, "--repo", repo]),
            try backup(["--root", root, "backup", "--repo", repo]),
            try backup.with("STRATA_ROOT", root)(["backup", "--repo", repo]),
        ] {
            #expect(result.status == 0, "\(result.standardError)")
        }
        let snapshots = try backup(["snapshots", "--repo", repo]).standardOutput
        #expect(snapshots.split(separator: "\n").count == 5, "\(snapshots)")
        let missing = try backup(["backup", "--repo", repo])
        #expect(missing.status == 2 && missing.standardError.contains("'--root DIR' is required"))
    }

    @Test func rootBeforeTheVerbReachesEveryGroupVerb() throws {
        #expect(try strata(["--root", root, "defaults", "get", "theme"]).standardOutput == "dark\n")
        #expect(try strata(["--root=\(root)", "defaults", "list"]).standardOutput == "theme = dark\n")
        let file = directory.appending("note.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["--root", root, "files", "put", "notes/a.txt", file]).status == 0)
        #expect(try strata(["--root", root, "files", "ls"]).standardOutput == "notes/a.txt\n")
        // A root given before the verb and another after it is a usage error, naming both; the same one is fine.
        let other = try strata(["--root", directory.appending("nowhere"), "files", "ls", "--root", root])
        #expect(other.status == 2 && other.standardError.contains("'--root' is given twice"), "\(other.standardError)")
        #expect(try strata(["--root", root, "files", "ls", "--root", root]).standardOutput == "notes/a.txt\n")
        // A verb without a root says so in its own words.
        let demo = try strata(["--root", root, "lint", "."])
        #expect(demo.status == 2)
        #expect(demo.standardError.contains("unknown option '--root'"))
    }
}
