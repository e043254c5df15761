import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// A PostgreSQL record store captured as JSON Lines from one `REPEATABLE READ` snapshot, against the real server.
@Suite("PostgreSQL engine: capture", .enabled(if: engines.contains(.postgres)))
struct PostgresCaptureTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    /// The records of one collection's export, by id, in file order.
    static func records(_ capture: FolderCapture, _ collection: String) throws -> [(id: String, body: [String: Any])] {
        let data = try #require(capture.contents(of: "records/postgres/c/\(collection).jsonl"))
        return try data.split(separator: 0x0A).map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            return (try #require(object["id"] as? String), try #require(object["body"] as? [String: Any]))
        }
    }

    /// Every collection, the key-value table and the description are exported; a collection larger than one page
    /// of rows is exported whole, each record once, by id.
    @Test func exportsEveryCollectionWholeAndDescribesTheStore() throws {
        let store = try fixture.store()
        let items = try store.collection(BatchItem.self, named: "items", indexes: [.field("batch")])
        try store.write { transaction in
            for index in 0..<2_500 {
                try transaction(items).insert(
                    BatchItem(id: String(format: "%05d", index), batch: index % 7, payload: "p"))
            }
        }
        try store.put(Data([0, 1, 0xFF]), for: "blob")
        let capture = try FolderCapture(folder: fixture.directory.appending("capture"))
        let report = try store.capture(into: capture, root: fixture.directory.path)
        #expect(report.fileCount == 3)
        let exported = try Self.records(capture, "items")
        #expect(exported.map(\.id) == (0..<2_500).map { String(format: "%05d", $0) })
        #expect(exported[3].body["batch"] as? Int == 3)
        let kv = String(decoding: try #require(capture.contents(of: "records/postgres/kv.jsonl")), as: UTF8.self)
        #expect(kv.contains(#""key" : "blob""#) || kv.contains(#""key":"blob""#), "\(kv)")
        #expect(kv.contains("0001ff"))
        let description = try JSONDecoder().decode(
            PostgresExportDescription.self, from: try #require(capture.contents(of: "records/postgres/store.json")))
        #expect(description.format == PostgresCapture.format)
        #expect(description.meta["format"] == "strata-records")
        #expect(description.collections.map(\.name) == ["items"])
        #expect(description.collections.first?.indexes.values.contains { $0.contains("batch") } == true)
    }

    /// A child process commits counter `a` of one collection and `b` of another together in a loop while the store
    /// is captured ten times: each capture is one snapshot — the pair, exported by two statements, is never torn —
    /// and holds every pair committed before it began.
    @Test func captureWhileAProcessWritesIsOneSnapshot() throws {
        let store = try fixture.store()
        _ = try store.collection(Counter.self, named: "counters")
        _ = try store.collection(Counter.self, named: "mirror")
        let writer = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["records-pair-loop", fixture.path])
        defer { writer.kill(SIGKILL) }
        _ = try writer.waitForLine(timeout: 120) { $0 == "pair 3" }
        var seen: [Int] = []
        for attempt in 0..<10 {
            let acknowledged =
                writer.lines.compactMap { $0.hasPrefix("pair ") ? Int($0.dropFirst(5)) : nil }.max() ?? 0
            let capture = try FolderCapture(folder: fixture.directory.appending("capture-\(attempt)"))
            _ = try store.capture(into: capture, root: fixture.directory.path)
            let counters = try Self.records(capture, "counters") + Self.records(capture, "mirror")
            #expect(counters.map(\.id) == ["a", "b"])
            let values = counters.map { $0.body["value"] as? Int ?? -1 }
            #expect(values[0] == values[1], "torn pair \(values)")
            #expect(values[0] >= acknowledged, "\(values[0]) < \(acknowledged)")
            seen.append(values[0])
        }
        #expect(Set(seen).count > 1, "the writer made no commit during the captures: \(seen)")
    }
}
