import Foundation
import Strata
import StrataTestSupport
import Testing

/// Selecting the PostgreSQL records engine is configuration: a connection string to `Storage`, or `--url` /
/// `STRATA_RECORDS_URL` to the CLI. Runs when the test server is up (always in CI).
@Suite("PostgreSQL selected by configuration", .enabled(if: RecordEngineKind.available.contains(.postgres)))
struct PostgresSelectionTests {
    let location: RecordStoreLocation
    let directory: TemporaryDirectory
    init() throws {
        location = try RecordStoreLocation(.postgres)
        directory = try TemporaryDirectory(prefix: "strata-pg-select")
    }

    /// The test server's URL naming this test's schema.
    var url: String { location.postgresURL }

    @Test func storageRoutesRecordsToPostgresFromAConnectionString() throws {
        let storage = try Storage(root: directory.appending("root"), recordsURL: url)
        let descriptor = DataDescriptor(kind: .structured, estimatedSize: 20)
        let selection = try storage.put(Data(#"{"id":"r1"}"#.utf8), for: "orders/r1", as: descriptor)
        #expect(selection.tier == .records)
        #expect(try storage.backend(for: .records).name == "postgres")
        #expect(try storage.data(for: "orders/r1") == Data(#"{"id":"r1"}"#.utf8))
        // The value is on the server: a store opened separately on the same schema sees it.
        #expect(try location.open().data(for: "orders/r1") == Data(#"{"id":"r1"}"#.utf8))
        // Without a URL, the records tier stays on SQLite under the root.
        let local = try Storage(root: directory.appending("local"), recordsURL: "")
        #expect(try local.backend(for: .records).name == "sqlite")
    }

    @Test func theCLIUsesPostgresWithURL() throws {
        let file = directory.appending("things.jsonl")
        try Data("{\"id\":\"a\",\"n\":1}\n{\"id\":\"b\",\"n\":2}\n".utf8).write(to: URL(fileURLWithPath: file))
        let strata = try TestExecutables.url(named: "strata")
        let imported = try ChildProcess.run(strata, ["records", "import", "things", file, "--url", url])
        #expect(imported.standardOutput == "imported 2 record(s)\n", "\(imported.standardError)")
        let query = try ChildProcess.run(
            strata, ["records", "query", "things", "--where", "n>=2"], environment: ["STRATA_RECORDS_URL": url])
        #expect(query.standardOutput == "{\"id\":\"b\",\"n\":2}\n", "\(query.standardError)")
        #expect(try ChildProcess.run(strata, ["records", "verify", "--url", url]).standardOutput == "ok\n")
        let refused = try ChildProcess.run(
            strata, ["records", "list", "--url", "postgresql://strata:hunter2@127.0.0.1:1/x?connect_timeout=5"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("connection-failed"))
        #expect(!refused.standardError.contains("hunter2"), "\(refused.standardError)")
    }
}
