import Foundation
import Strata
import StrataTestSupport
import Testing

/// A files tier nested 4,000 folders deep (another program's: no key is that long) crashed `verify`, `files ls`,
/// `files verify`, `inspect` and `backup` with a stack overflow (exit 139), and a snapshot holding such a path
/// crashed `restore` and left its staging folder behind. Documents nested that deep (plists, JSON Lines) are
/// refused, typed. Run as the real binary; with `STRATA_TEST_EXECUTABLES=.build/release` the same tests run the
/// release build.
@Suite("strata CLI: trees and documents nested deeper than any limit")
struct DeepTreeCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }
    /// Deep enough to overflow the 8 MiB main stack of a debug build one frame a level.
    static let depth = 4_000
    /// The deepest file a key can name here: 500 levels of `d/` and `leaf` make a key of 1,004 bytes.
    static let reachableDepth = 500

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-deep", inMemory: true)
        try RepositoryKey.createKeyFile(at: keyFile)
    }

    func strata(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": "", "STRATA_PASSPHRASE": "pw"])
    }

    /// A store with one file put by the tool, one 500 folders deep and one 4,000 deep (both made by another
    /// program).
    func deepStore() throws -> (put: String, reachable: String) {
        #expect(try strata(["init", "--root", root]).status == 0)
        let source = directory.appending("source.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: source))
        #expect(try strata(["files", "put", "notes/a.txt", source, "--root", root]).status == 0)
        let reachable = try DeepFolders.make(in: root + "/files", depth: Self.reachableDepth, leaf: "reached")
        try DeepFolders.make(in: root + "/files", depth: Self.depth)
        return ("notes/a.txt", reachable)
    }

    @Test func everyVerbThatWalksTheFilesTierListsItToTheDepthAKeyReaches() throws {
        let (put, reachable) = try deepStore()
        let listed = try strata(["files", "ls", "--root", root])
        #expect(listed.status == 0, "\(listed.standardError.suffix(500))")
        #expect(listed.standardOutput == reachable + "\n" + put + "\n")
        for verb in [["files", "verify"], ["verify"], ["inspect"]] {
            let result = try strata(verb + ["--root", root])
            #expect(result.status == 0 || result.status == 1, "\(verb): \(result.standardError.suffix(500))")
            #expect(!result.standardError.contains("Crash") && !result.standardError.contains("Backtrace"), "\(verb)")
        }
        #expect(try strata(["verify", "--root", root]).status == 0)

        let backup = try strata(["backup", root, "--repo", repo, "--init", "--key-file", keyFile])
        #expect(backup.status == 0, "\(backup.standardError.suffix(500))")
        let target = directory.appending("restored")
        let id = try BackupRepository.open(at: repo, key: .keyFile(keyFile)).snapshots()[0].id
        let restore = try strata(["restore", id, "--repo", repo, "--repo-key-file", keyFile, "--root", target])
        #expect(restore.status == 0, "\(restore.standardError.suffix(500))")
        #expect(try strata(["files", "ls", "--root", target]).standardOutput == reachable + "\n" + put + "\n")
        #expect(try strata(["files", "get", reachable, "--root", target]).standardOutput == "deep")
    }

    @Test func aSnapshotHoldingAPathDeeperThanAnyKeyIsRefusedAndLeavesNothing() throws {
        #expect(try strata(["init", "--root", root]).status == 0)
        #expect(try strata(["backup", root, "--repo", repo, "--init", "--key-file", keyFile]).status == 0)
        // The snapshot again, with a file 4,000 folders deep in the files tier: what a hostile repository holds.
        let repository = try BackupRepository.open(at: repo, key: .keyFile(keyFile))
        let original = try repository.snapshots()[0]
        let reader = try repository.snapshot(original.id)
        let writer = try repository.beginSnapshot(parent: .none)
        for file in reader.files { try writer.add(file, contents: try reader.contents(of: file)) }
        let deep = CapturedFile(
            path: "files/" + String(repeating: "d/", count: Self.depth) + "leaf", tier: .files, mode: 0o600, size: 4,
            modificationTime: .init(seconds: 1_700_000_000, nanoseconds: 0))
        try writer.add(deep, contents: Array("deep".utf8))
        let hostile = try writer.commit(metadata: original.metadata)
        reader.close()

        let target = directory.appending("restored")
        let restore = try strata(["restore", hostile.id, "--repo", repo, "--repo-key-file", keyFile, "--root", target])
        #expect(restore.status == 1, "\(restore.standardError.suffix(500))")
        #expect(restore.standardError.contains("corrupt"), "\(restore.standardError.suffix(500))")
        #expect(restore.standardError.contains("longer than any key"), "\(restore.standardError.suffix(500))")
        #expect(!FileManager.default.fileExists(atPath: target))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix(".strata-restore-") }, "\(left)")

        // Restoring some keys into the existing store stages the capture the same way: refused, nothing written.
        for selection in [["--prefix", "d"], ["--prefix", ""], ["--key", String(deep.path.dropFirst(6))]] {
            let partial = try strata(
                ["restore", hostile.id, "--repo", repo, "--repo-key-file", keyFile, "--root", root] + selection)
            #expect(partial.status == 1, "\(selection): \(partial.standardError.suffix(300))")
            #expect(partial.standardError.contains("longer than any key"), "\(selection)")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/files/d"))
        let after = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!after.contains { $0.hasPrefix(".strata-restore-") }, "\(after)")
    }

    /// A plist (both formats) or a JSON Lines file nested `levels` deep is refused with a typed error and changes
    /// nothing: imported, or planted as a suite file (moved aside, and reported by `verify`).
    @Test(arguments: [4_000, 100_000])
    func documentsNestedDeeperThanTheLimitsAreRefused(levels: Int) throws {
        #expect(try strata(["init", "--root", root]).status == 0)
        let xml = directory.appending("deep.plist")
        try Data(
            ("<plist><dict><key>deep</key>" + String(repeating: "<array>", count: levels) + "<true/>"
                + String(repeating: "</array>", count: levels) + "</dict></plist>").utf8
        ).write(to: URL(fileURLWithPath: xml))
        var table = BinaryPropertyList.ObjectTable()
        var chain = table.add(.bool(true))
        for _ in 0..<levels { chain = table.addArray([chain]) }
        let binary = directory.appending("deep.bplist")
        let key = table.add(.string("deep"))
        let top = table.addDictionary([(key, chain)])
        try table.encoded(top: top).write(to: URL(fileURLWithPath: binary))
        for file in [xml, binary] {
            let imported = try strata(["defaults", "import", file, "--root", root])
            #expect(imported.status == 1, "\(imported.standardError.suffix(500))")
            #expect(imported.standardError.contains("nesting deeper than 256 levels"), "\(imported.standardError)")
        }
        #expect(try strata(["defaults", "list", "--root", root]).standardOutput.isEmpty)

        let lines = directory.appending("deep.jsonl")
        try Data(
            (#"{"id":"a","deep":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
                + "}\n").utf8
        ).write(to: URL(fileURLWithPath: lines))
        let records = try strata(["records", "import", "notes", lines, "--root", root, "--create"])
        #expect(records.status == 1, "\(records.standardError.suffix(500))")
        #expect(records.standardError.contains("nesting too deep"), "\(records.standardError)")

        try FileManager.default.createDirectory(
            atPath: root + "/defaults", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: binary, toPath: root + "/defaults/standard.plist")
        let verify = try strata(["verify", "--root", root])
        #expect(verify.status == 1, "\(verify.standardError.suffix(500))")
        #expect(verify.standardOutput.contains("nesting deeper than 256 levels"), "\(verify.standardOutput)")
    }
}
