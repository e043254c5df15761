import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// The query semantics of an indexed field on PostgreSQL, on the values where an index layout could change them:
/// integers past 2^53 (which a `float8` key cannot tell apart), `-0.0` and `0`, strings that look like numbers,
/// JSON `null` and a missing field, booleans, arrays and objects in the same field. Every query returns the same
/// records, in the same order, from a collection with the index as from one without it; a typed index layout must
/// keep passing this.
@Suite("PostgreSQL index semantics", .enabled(if: engines.contains(.postgres)))
struct PostgresIndexSemanticsTests {
    /// One record per edge case, by id: the JSON of its field `v` (nil: the field is missing).
    static let values: [(id: String, json: String?)] = [
        ("n1", "1"), ("n1r", "1.5"), ("big", "9007199254740992"), ("big1", "9007199254740993"),
        ("negzero", "-0.0"), ("zero", "0"), ("neg", "-5"), ("huge", "1e300"), ("tiny", "1e-300"),
        ("s10", #""10""#), ("s9", #""9""#), ("s1e3", #""1e3""#), ("sEmpty", #""""#), ("sTrue", #""true""#),
        ("t", "true"), ("f", "false"), ("null", "null"), ("missing", nil), ("arr", "[1]"), ("arrEmpty", "[]"),
        ("obj", #"{"a":1}"#),
    ]

    static func record(_ id: String, _ json: String?) throws -> AnyRecord {
        let text = #"{"id":"\#(id)""# + (json.map { #","v":\#($0)"# } ?? "") + "}"
        return try AnyRecord(body: Array(text.utf8).withUnsafeBytes { try JSONValue.parse($0) })
    }

    @Test func anIndexChangesNoQueryResult() throws {
        let fixture = try RecordsFixture(.postgres)
        let store = try fixture.store()
        let plain = try store.collection(AnyRecord.self, named: "plain")
        let indexed = try store.collection(AnyRecord.self, named: "indexed", indexes: [.field("v")])
        // Records without the field, so that the planner picks the index for a selective predicate.
        let records =
            try Self.values.map { try Self.record($0.id, $0.json) }
            + (0..<2000).map { try Self.record(String(format: "filler%05d", $0), nil) }
        try plain.insert(contentsOf: records)
        try indexed.insert(contentsOf: records)

        let v = Field("v")
        let compared: [QueryValue] = [
            .integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992), .integer(0), .real(-0.0), .real(1.5),
            .integer(1), .real(1e300), .text("10"), .text("9"), .text(""), .text("true"), .bool(true), .bool(false),
        ]
        var predicates: [StrataRecords.Predicate] = [
            v.isNull, v.isNotNull, v.hasPrefix("1"), v.hasPrefix(""), v.contains("1"),
            v.isIn([.integer(10), .text("10"), .integer(0), .bool(false)]), v == nil, v != nil,
        ]
        for value in compared {
            predicates += [v == value, v != value, v < value, v <= value, v > value, v >= value]
        }
        func ids(_ collection: RecordCollection<AnyRecord>, _ query: Query) throws -> [String] {
            try collection.fetch(query).map(\.id).filter { !$0.hasPrefix("filler") }
        }
        for predicate in predicates {
            let query = Query(predicate)
            #expect(try ids(indexed, query) == ids(plain, query), "\(predicate)")
        }
        for ascending in [true, false] {
            let query = Query(.all, sort: [SortKey(field: v, ascending: ascending)], limit: 40)
            #expect(try indexed.fetch(query).map(\.id) == plain.fetch(query).map(\.id), "ascending: \(ascending)")
        }
        #expect(try indexed.min(v) == plain.min(v))
        #expect(try indexed.max(v) == plain.max(v))

        // What jsonb's semantics give (the Queries table of the PostgreSQL guide).
        #expect(try ids(indexed, Query(v == .integer(9_007_199_254_740_993))) == ["big1"])
        #expect(try ids(indexed, Query(v > .integer(9_007_199_254_740_992))) == ["big1", "huge"])
        #expect(try ids(indexed, Query(v == .integer(0))) == ["negzero", "zero"])
        #expect(try ids(indexed, Query(v == .text("10"))) == ["s10"])
        #expect(try ids(indexed, Query(v < .text("9"))) == ["s10", "s1e3", "sEmpty"])
        #expect(try ids(indexed, Query(v >= .integer(1))) == ["big", "big1", "huge", "n1", "n1r"])
        #expect(try ids(indexed, Query(v == .bool(true))) == ["t"])
        #expect(try ids(indexed, Query(v.isNull)) == ["missing", "null"])

        // The index serves equality and ranges on numbers and on strings.
        for predicate in [v == .integer(9_007_199_254_740_993), v >= .integer(1), v == .text("10"), v < .text("9")] {
            let plan = try store.queryPlan(for: Query(predicate), in: "indexed").joined(separator: "\n")
            #expect(plan.contains("i_indexed_v"), "\(predicate): \(plan)")
        }
    }
}
