import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue 36 item 11: values an application puts through `Storage` that route to records are rows of the record
/// store's key-value table, no collection's records; `records list` counts them, labelled, and `records keys` lists
/// them, so the tool shows what the API wrote.
@Suite("strata CLI: the records tier's Storage key-values")
struct RecordsKeyValueCLITests {
    struct Episode: Codable, Sendable, Equatable {
        var title: String
        var minutes: Int
    }

    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-records-kv")
    }

    /// A store where the API put two structured values (routed to records) beside an imported collection.
    func filledStore() throws {
        let storage = try Storage(root: root)
        let first = try storage.set(Episode(title: "Pilot", minutes: 42), for: "episodes/1")
        #expect(first?.tier == .records)
        try storage.set(Episode(title: "Second", minutes: 38), for: "episodes/2")
        let people = directory.appending("people.jsonl")
        try Data(#"{"id":"p1","name":"Ada"}"#.utf8 + [0x0A]).write(to: URL(fileURLWithPath: people))
        let imported = try strata(["records", "import", "people", people, "--root", root])
        try #require(imported.status == 0, "\(imported.standardError)")
    }

    @Test func listCountsTheKeyValuesLabelledAndKeysListsThem() throws {
        try filledStore()
        let list = try strata(["records", "list", "--root", root])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput == "people\t1\n(key-values)\t2\n")

        let keys = try strata(["records", "keys", "--root", root])
        #expect(keys.status == 0, "\(keys.standardError)")
        #expect(keys.standardOutput == "episodes/1\nepisodes/2\n")
        #expect(try strata(["records", "keys", "episodes/2", "--root", root]).standardOutput == "episodes/2\n")
        let long = try strata(["records", "keys", "--long", "--root", root]).standardOutput
        let fields = long.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(fields.map { $0.first } == ["episodes/1", "episodes/2"] && fields.allSatisfy { $0.count == 3 })

        // What the tool lists is what the API reads back, and `strata get` (through Storage) writes it.
        let value = try strata(["get", "episodes/1", "--root", root])
        #expect(value.status == 0, "\(value.standardError)")
        #expect(try JSONDecoder().decode(Episode.self, from: Data(value.standardOutput.utf8)).title == "Pilot")
    }

    @Test func jsonShapes() throws {
        try filledStore()
        let list = try JSONSerialization.jsonObject(
            with: Data(try strata(["records", "list", "--root", root, "--json"]).standardOutput.utf8))
        let object = try #require(list as? [String: Any])
        #expect(object["keyValueCount"] as? Int == 2)
        let collections = try #require(object["collections"] as? [[String: Any]])
        #expect(collections.map { $0["name"] as? String } == ["people"])

        let keys = try JSONSerialization.jsonObject(
            with: Data(try strata(["records", "keys", "--root", root, "--json"]).standardOutput.utf8))
        let values = try #require((keys as? [String: Any])?["keyValues"] as? [[String: Any]])
        #expect(values.map { $0["key"] as? String } == ["episodes/1", "episodes/2"])
        let expectedSize = try JSONEncoder().encode(Episode(title: "Pilot", minutes: 42)).count
        #expect(values[0]["size"] as? Int == expectedSize)
        #expect((values[0]["modified"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
    }

    /// A store without key-values prints what it printed before (no label line), and removing them through the
    /// tool (`strata rm`, as `Storage.delete`) empties the listing.
    @Test func removedKeyValuesLeaveTheListing() throws {
        try filledStore()
        for key in ["episodes/1", "episodes/2"] {
            let removed = try strata(["rm", key, "--root", root])
            #expect(removed.status == 0 && removed.standardOutput.isEmpty, "\(removed.standardError)")
        }
        #expect(try strata(["records", "list", "--root", root]).standardOutput == "people\t1\n")
        let keys = try strata(["records", "keys", "--root", root])
        #expect(keys.status == 0 && keys.standardOutput.isEmpty, "\(keys.standardError)")
        #expect(try Storage(root: root).data(for: "episodes/1") == nil)
    }

    /// A store with no records tier lists nothing, and `keyValueCount` 0.
    @Test func emptyTier() throws {
        let storage = try Storage(root: root)
        try storage.set("dark", for: "theme")
        try storage.backend(for: .defaults).flush()
        #expect(try strata(["records", "keys", "--root", root]).standardOutput == "")
        let list = try JSONSerialization.jsonObject(
            with: Data(try strata(["records", "list", "--root", root, "--json"]).standardOutput.utf8))
        #expect((list as? [String: Any])?["keyValueCount"] as? Int == 0)
    }
}
