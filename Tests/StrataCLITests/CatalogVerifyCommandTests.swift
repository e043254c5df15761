import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// `strata verify ROOT` checks the catalog too: it settles and reports interrupted moves, and exits 1 when the
/// catalog and the tiers disagree.
@Suite("strata verify: the catalog")
struct CatalogVerifyCommandTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-catalog") }

    func verify() throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), ["verify", root],
            environment: ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "pw"])
    }

    @Test func anInterruptedMoveIsSettledAndReported() throws {
        do {
            let storage = try Storage(root: root, secretsKey: .passphrase(Secret("pw")))
            try storage.put(Data("old".utf8), for: "k", as: DataDescriptor(kind: .preference, estimatedSize: 3))
            try storage.backend(for: .defaults).flush()
            // A process died after writing the new copy and before recording the move.
            try storage.catalog.record([.intent(key: "k", from: .defaults, to: .files)], durable: true)
            try OutsideHands.writeFile("k", Data("new".utf8), root: root)
        }
        let result = try verify()
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(
            result.standardError.contains(
                "catalog: settled: k: the move defaults -> files was not recorded; undid it (removed the copy in files)"
            ))
        #expect(result.standardOutput.hasPrefix("ok: every tier of"))
        #expect(result.standardOutput.contains("ok: every tier of"))
        let storage = try Storage(root: root, secretsKey: .passphrase(Secret("pw")))
        #expect(try storage.data(for: "k") == Data("old".utf8))
        #expect(!(try storage.backend(for: .files).contains("k")))
        // Settled once: the next verify has nothing to say about it.
        #expect(!(try verify().standardError.contains("settled")))
    }

    /// A value removed outside Strata is repaired and said so; a stray copy written beside a catalogued key is a
    /// problem, and fails the check.
    @Test func disagreementsFailTheCheck() throws {
        do {
            let storage = try Storage(root: root, secretsKey: .passphrase(Secret("pw")))
            try storage.put(Data("a".utf8), for: "gone", as: DataDescriptor(kind: .file, estimatedSize: 1))
            try storage.put(Data("b".utf8), for: "twice", as: DataDescriptor(kind: .credential, estimatedSize: 1))
            try OutsideHands.removeFile("gone", root: root)
            try OutsideHands.records(root: root).put(Data("c".utf8), for: "twice")
        }
        let result = try verify()
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "catalog: repaired: gone: the catalog said files holds it, and it did not; no tier does: entry removed"),
            "\(result.standardError)")
        #expect(result.standardOutput.contains("catalog: twice: copies in secrets, records"))
        #expect(result.standardError.contains("1 problem(s) found"), "\(result.standardOutput)\(result.standardError)")
    }

    @Test func aStoreWithoutACatalogIsNotGivenOne() throws {
        let files = try FileStore(paths: try StoragePaths(root: root))
        try files.write(Data("x".utf8), to: "a.txt")
        #expect(try verify().status == 0)
        #expect(!FileManager.default.fileExists(atPath: root + "/catalog"))
    }
}
