import Foundation
import StrataTestSupport
import Testing

/// What an adversarial pass over the merged issue-16 tool found: the seams between its parts (global options
/// with no verb, the group help pages, build-stage wording left in the sources and guides).
@Suite("strata CLI: review of issue 16's seams")
struct CLIReviewTests {
    let directory: TemporaryDirectory
    let strata = StrataRunner()
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-review") }

    /// A global option with no verb after it is a usage error that says a command is missing, not "unknown
    /// command '--root'".
    @Test(arguments: [["--root", "X"], ["--root=X"], ["--root"]])
    func aGlobalOptionWithoutAVerbIsAUsageError(arguments: [String]) throws {
        let result = try strata(arguments)
        #expect(result.status == 2)
        #expect(!result.standardError.contains("unknown command"), "\(result.standardError)")
        #expect(result.standardError.contains("a command"), "\(result.standardError)")
    }

    /// Every group's help page (`strata files --help`) has the ARGUMENTS and OPTIONS sections a verb's has.
    @Test(arguments: ["defaults", "secrets", "records", "files"])
    func everyGroupHelpPageNamesItsArguments(group: String) throws {
        for arguments in [[group, "--help"], ["help", group], [group]] {
            let help = try strata(arguments).standardOutput
            let section = try #require(help.range(of: "\nArguments:\n  <command>"), "\(arguments): \(help)")
            #expect(help[section.upperBound...].contains("\nOptions:\n  --help"), "\(arguments): \(help)")
        }
    }

    /// The tool and the guides speak of what is built, not of a build stage ("tiers not built yet").
    @Test func noBuildStageWordingIsLeft() throws {
        let root = CompletionAndHelpTests.packageRoot
        let phrases = ["not built yet", "in this build yet", "when it lands", "once it lands", "| landed"]
        var found: [String] = []
        for folder in ["Sources", "Documentation"] {
            let enumerator = try #require(FileManager.default.enumerator(atPath: root + "/" + folder))
            for case let file as String in enumerator where file.hasSuffix(".swift") || file.hasSuffix(".md") {
                let text = try String(contentsOfFile: "\(root)/\(folder)/\(file)", encoding: .utf8).lowercased()
                found += phrases.filter(text.contains).map { "\(folder)/\(file): \($0)" }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// The demo stores every sample in a tier and says so.
    @Test func theDemoStoresEverySample() throws {
        let result = try strata(["demo"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.contains("stored 8 of 8 values; every tier answered."), "\(result.standardOutput)")
    }

    /// A bad `--where`, `--sort` or `--limit` is a usage error whatever the store holds: the query is read before
    /// the store is opened.
    @Test(arguments: [["--where", "a="], ["--where", "n<>3"], ["--limit", "-1"]])
    func aBadQueryIsAUsageErrorBeforeTheStoreIsOpened(options: [String]) throws {
        let root = directory.appending("store")
        #expect(try strata(["init", root]).status == 0)
        let result = try strata(["records", "query", "notes", "--root", root] + options)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("strata records query: "), "\(result.standardError)")
    }

    /// A collection or record asked for in a store without records is a typed `not-found`, printed with its code
    /// and its fix (`records list` reads the empty tier as empty: see `CLIFinishTests`).
    @Test(arguments: [["records", "query", "notes"], ["records", "get", "notes", "n1"]])
    func aMissingRecordStoreIsNotFound(arguments: [String]) throws {
        let root = directory.appending("store")
        #expect(try strata(["init", root]).status == 0)
        let result = try strata(arguments + ["--root", root])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains(": error: not-found: "), "\(result.standardError)")
    }

    @Test func aMissingCollectionIsNotFound() throws {
        let root = directory.appending("store")
        let lines = directory.appending("notes.jsonl")
        try Data(#"{"id":"n1","title":"a"}"#.utf8).write(to: URL(fileURLWithPath: lines))
        #expect(try strata(["records", "import", "notes", lines, "--root", root, "--create"]).status == 0)
        let result = try strata(["records", "query", "note", "--root", root])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains(": error: not-found: "), "\(result.standardError)")
    }
}
