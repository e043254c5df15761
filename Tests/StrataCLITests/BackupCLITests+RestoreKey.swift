import Foundation
import Strata
import StrataTestSupport
import Testing

// `strata restore … --key KEY` (one key exactly, into an existing store) and `--records-url URL` (a store whose
// records were on PostgreSQL), run as the real binary.
extension BackupCLITests {
    @Test func restoreOneKeyExactly() throws {
        let storage = try filledStore()
        try storage.set("wide", for: "themes")
        try storage.backend(for: .defaults).flush()
        _ = try succeeds(["backup", root, "--init"])
        guard case .string(let id) = try snapshotList().last?["id"] else {
            Issue.record("no snapshot")
            return
        }
        try storage.set("blue", for: "theme")
        try storage.set("narrow", for: "themes")
        try storage.backend(for: .defaults).flush()

        let one = try succeeds(["restore", id, "--root", root, "--key", "theme"])
        #expect(one.standardOutput == "restored theme\n", "\(one.standardOutput)")
        let reopened = try Storage(root: root, secretsKey: Self.secretsKey)
        #expect(try reopened.value(String.self, for: "theme") == "dark")
        #expect(try reopened.value(String.self, for: "themes") == "narrow")

        let missing = try strata([
            "restore", id, "--root", root, "--key", "them", "--repo", repo, "--repo-key-file", keyFile,
        ])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("not-found") && missing.standardError.contains("them"))
        let both = try strata(
            [
                "restore", id, "--root", root, "--key", "theme", "--prefix", "t", "--repo", repo, "--repo-key-file",
                keyFile,
            ])
        #expect(both.status != 0 && both.standardError.contains("--prefix"), "\(both.standardError)")
    }

    @Test(.enabled(if: RecordEngineKind.available.contains(.postgres)))
    func restoreRecordsIntoAPostgresSchema() throws {
        let url = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable]!
        let separator = url.contains("?") ? "&" : "?"
        let (source, target) = (
            "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36),
            "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        )
        defer {
            for schema in [source, target] {
                _ = try? PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: url, schema: schema))
            }
        }
        let storage = try Storage(
            root: root, secretsKey: Self.secretsKey, recordsURL: url + separator + "strata_schema=" + source)
        try storage.put(
            Data(#"{"title":"note"}"#.utf8), for: "notes/1",
            as: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true))
        var configuration = storage.configuration
        configuration.records.url = url + separator + "strata_schema=" + source
        try configuration.write(to: storage.paths)
        _ = try succeeds(["backup", root, "--init"])
        guard case .string(let id) = try snapshotList().last?["id"] else {
            Issue.record("no snapshot")
            return
        }
        let restoredRoot = directory.appending("restored")
        let restored = try succeeds([
            "restore", id, "--root", restoredRoot, "--records-url", url + separator + "strata_schema=" + target,
        ])
        #expect(restored.standardOutput.contains("keys read back"), "\(restored.standardOutput)")
        let copy = try Storage(root: restoredRoot, secretsKey: Self.secretsKey)
        #expect(copy.records.name == "postgres")
        #expect(try copy.data(for: "notes/1") == Data(#"{"title":"note"}"#.utf8))
        // Into the same schema again: refused, naming it.
        let again = try strata([
            "restore", id, "--root", directory.appending("again"), "--records-url",
            url + separator + "strata_schema=" + target, "--repo", repo, "--repo-key-file", keyFile,
        ])
        #expect(again.status != 0 && again.standardError.contains(target), "\(again.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("again")))
    }
}
