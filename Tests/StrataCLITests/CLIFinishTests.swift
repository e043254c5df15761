import Foundation
import StrataTestSupport
import Testing

/// The last gaps of the CLI's error lines and read verbs: every failure prints its code after the command's name,
/// and an existing store with an empty tier reads as empty on every tier.
@Suite("strata CLI: typed failures and empty tiers")
struct CLIFinishTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-finish") }

    /// Runs `arguments`, expects exit 1 and an error line `strata <command>: error: <code>: …` holding `parts`.
    func expectFailure(_ arguments: [String], command: String, code: String, _ parts: [String] = []) throws {
        let run = try strata(arguments)
        #expect(run.status == 1, "\(arguments): \(run.standardError)")
        #expect(
            run.standardError.hasPrefix("strata \(command): error: \(code): "), "\(arguments): \(run.standardError)")
        for part in parts { #expect(run.standardError.contains(part), "\(part) in \(run.standardError)") }
    }

    func makeStore() throws {
        #expect(try strata(["init", root]).status == 0)
    }

    @Test func aMissingDefaultsKeyIsNotFoundWithItsTierAndKey() throws {
        #expect(try strata(["defaults", "set", "theme", "dark", "--root", root, "--create"]).status == 0)
        for verb in ["get", "delete"] {
            try expectFailure(
                ["defaults", verb, "colour", "--root", root], command: "defaults \(verb)", code: "not-found",
                ["tier defaults", "key \"colour\"", "strata defaults list"])
        }
    }

    @Test func aMissingSecretIsNotFoundWithItsTierAndAccount() throws {
        let set = try strata(["secrets", "set", "mail", "alice", "--root", root, "--create"], input: Data("v".utf8))
        #expect(set.status == 0, "\(set.standardError)")
        for verb in ["get", "delete"] {
            try expectFailure(
                ["secrets", verb, "mail", "bob", "--root", root], command: "secrets \(verb)", code: "not-found",
                ["tier secrets", "key \"bob\"", "'mail'", "strata secrets list"])
        }
    }

    @Test func aMissingFileToRemoveIsNotFoundWithItsKey() throws {
        let source = directory.appending("source.txt")
        try Data("x".utf8).write(to: URL(fileURLWithPath: source))
        #expect(try strata(["files", "put", "a.txt", source, "--root", root, "--create"]).status == 0)
        try expectFailure(
            ["files", "rm", "b.txt", "--root", root], command: "files rm", code: "not-found",
            ["tier files", "key \"b.txt\"", "strata files ls"])
    }

    /// Every verb that reads an input file: a missing file is `not-found`, a folder `invalid-argument`, each
    /// with the path.
    @Test func anUnreadableInputFileIsTypedWithItsPath() throws {
        try makeStore()
        let missing = directory.appending("missing.input")
        let folder = directory.path
        let verbs: [(command: String, arguments: (String) -> [String])] = [
            ("defaults import", { ["defaults", "import", $0, "--root", root] }),
            ("secrets set", { ["secrets", "set", "mail", "alice", "--value-file", $0, "--root", root] }),
            ("files put", { ["files", "put", "a.txt", $0, "--root", root] }),
        ]
        for verb in verbs {
            try expectFailure(
                verb.arguments(missing), command: verb.command, code: "not-found", ["path \"\(missing)\""])
            try expectFailure(
                verb.arguments(folder), command: verb.command, code: "invalid-argument", ["path \"\(folder)\""])
        }
    }

    /// A store that exists but whose tier is empty reads as empty on all four tiers; nothing is created.
    @Test func anEmptyTierReadsAsEmptyOnEveryTier() throws {
        try makeStore()
        let before = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        let empty: [([String], String)] = [
            (["defaults", "list"], ""), (["defaults", "list", "--json"], #"{"entries":[]}"#),
            (["secrets", "list"], ""), (["secrets", "list", "--json"], #"{"items":[]}"#),
            (["records", "list"], ""), (["records", "list", "--json"], #"{"collections":[],"keyValueCount":0}"#),
            (["records", "keys"], ""), (["records", "keys", "--json"], #"{"keyValues":[]}"#),
            (["records", "verify"], "ok\n"),
            (["files", "ls"], ""), (["files", "ls", "--json"], #"{"files":[]}"#),
        ]
        for (arguments, expected) in empty {
            let run = try strata(arguments + ["--root", root])
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
            #expect(
                run.standardOutput.filter { !$0.isWhitespace } == expected.filter { !$0.isWhitespace },
                "\(arguments): \(run.standardOutput)")
        }
        // Asking for one thing in an empty tier is the same not-found as in a tier without it.
        try expectFailure(
            ["records", "query", "users", "--root", root], command: "records query", code: "not-found",
            ["there is no collection 'users'"])
        try expectFailure(
            ["secrets", "get", "mail", "alice", "--root", root], command: "secrets get", code: "not-found",
            ["key \"alice\""])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == before, "nothing created")
    }

    /// A name typed for a store or keyring that does not exist is never read as an empty one; a root that is
    /// not a store stays `not-a-store`.
    @Test func aMistypedNameOrARootThatIsNoStoreStillFails() throws {
        try makeStore()
        try expectFailure(
            ["records", "list", "--store", "mian", "--root", root], command: "records list", code: "not-found",
            ["mian"])
        try expectFailure(
            ["secrets", "list", "--keyring", "defualt", "--root", root], command: "secrets list", code: "not-found")
        let plain = directory.appending("plain")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        for arguments in [["defaults", "list"], ["secrets", "list"], ["records", "list"], ["files", "ls"]] {
            try expectFailure(
                arguments + ["--root", plain], command: arguments.joined(separator: " "), code: "not-a-store")
        }
    }
}
