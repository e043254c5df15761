import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// The key columns of indexed fields (format version 2): keys the client computes order and compare exactly as the
/// server's `jsonb` does; a store of format version 1 is upgraded when opened; every process writes the key
/// columns that exist, whoever added them, and a writer that does not know one fails instead of storing a row its
/// index misses.
@Suite("PostgreSQL index keys", .enabled(if: engines.contains(.postgres)))
struct PostgresIndexKeyTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    var configuration: PostgresConfiguration {
        get throws { try RecordStoreLocation.postgresConfiguration(fixture.path) }
    }

    /// Values where an order could go wrong: numbers of every size and form, strings beyond the BMP and ones that
    /// are prefixes of others, containers of every count and nesting.
    static let values: [String] = [
        "0", "-0", "-0.0", "0e5", "1", "1.0", "1e0", "10", "1.5", "-1", "-1.5", "-1.05", "-10", "2", "9", "99",
        "0.001", "-0.001", "1e-400", "-1e-400", "1e400", "-1e400", "1E+2", "100", "123456789012345678901234567890",
        "123456789012345678901234567891", "9007199254740993", "9007199254740992", "0.1", "0.10000000000000001",
        "-123456789.123456789", #""""#, #""a""#, #""ab""#, #""b""#, #""A""#, #""é""#, #""😀""#, #""\uffff""#,
        #""a\u0001""#, #""10""#, "true", "false", "[]", "[[]]", "[1]", "[1,2]", "[2]", "[1,[2]]", "[1,3]",
        #"["a"]"#, "[null]", "[true]", "[false,1]", #"[{"a":1}]"#, "{}", #"{"a":1}"#, #"{"a":2}"#, #"{"b":1}"#,
        #"{"aa":1}"#, #"{"b":1,"aa":0}"#, #"{"a":[1]}"#, #"{"a":{"b":null}}"#, #"{"a":1,"b":2}"#, "[1.0]",
        "[0]", "[-0.5]",
    ]

    @Test func keysOrderAndCompareAsTheServersJSONB() throws {
        let engine = try PostgresRecordEngine(configuration)
        defer { engine.close() }
        #expect(engine.sortsTextBytewise)
        let keys = try Self.expectKeysOrderAndCompareAsTheServer(Self.values, engine: engine)
        // A missing field and JSON null: the empty key, below every other.
        #expect(
            try Array(#"{"w":1}"#.utf8).withUnsafeBytes {
                try PostgresKeyColumns([Field("v")]).keys(of: $0, id: "r", in: "c")
            } == [[]])
        #expect(
            try Array(#"{"v":null}"#.utf8).withUnsafeBytes {
                try PostgresKeyColumns([Field("v")]).keys(of: $0, id: "r", in: "c")
            } == [[]]
        )
        #expect(!keys.contains([]))
    }

    /// Expects the keys of `values` (JSON texts) to sort as `ORDER BY` on the server sorts the values, and to be
    /// equal exactly where the server's `=` says the values are; returns the keys.
    static func expectKeysOrderAndCompareAsTheServer(_ values: [String], engine: PostgresRecordEngine) throws
        -> [[UInt8]]
    {
        let keys = try values.map { json in
            try Array(#"{"v":\#(json)}"#.utf8).withUnsafeBytes {
                try PostgresKeyColumns([Field("v")]).keys(of: $0, id: "r", in: "c")[0]
            }
        }
        let (serverOrder, serverEqual) = try engine.pool.with { connection -> ([Int], [[Bool]]) in
            let literal = PostgresSQL.arrayLiteral(values)
            let order = try connection.query(
                "SELECT o - 1 FROM unnest($1::jsonb[]) WITH ORDINALITY AS t(v, o) ORDER BY v, o", [.text(literal)],
                operation: "test")
            let equal = try connection.query(
                "SELECT a.o - 1, b.o - 1, a.v = b.v FROM unnest($1::jsonb[]) WITH ORDINALITY AS a(v, o), unnest($1::jsonb[]) WITH ORDINALITY AS b(v, o) ORDER BY a.o, b.o",
                [.text(literal)], operation: "test")
            var matrix = [[Bool]](
                repeating: [Bool](repeating: false, count: values.count), count: values.count)
            for row in 0..<equal.rowCount {
                matrix[Int(equal.text(row, 0))!][Int(equal.text(row, 1))!] = equal.text(row, 2) == "t"
            }
            return ((0..<order.rowCount).map { Int(order.text($0, 0))! }, matrix)
        }
        // Stable: equal keys keep the list's order, as the server's tie-break on the ordinal does.
        let clientOrder = keys.indices.sorted {
            keys[$0].lexicographicallyPrecedes(keys[$1]) || (keys[$0] == keys[$1] && $0 < $1)
        }
        #expect(clientOrder.map { values[$0] } == serverOrder.map { values[$0] })
        for a in keys.indices {
            for b in keys.indices where (keys[a] == keys[b]) != serverEqual[a][b] {
                Issue.record("\(values[a]) and \(values[b]): keys equal \(keys[a] == keys[b])")
            }
        }
        return keys
    }

    /// The SQL of format version 1: expression indexes over `jsonb`, as the previous release made them.
    static func makeVersion1Store(_ engine: PostgresRecordEngine) throws {
        try engine.executeForTesting(
            """
            DROP TABLE c_people; DROP TABLE IF EXISTS c_extra;
            UPDATE strata_meta SET value = '1' WHERE key = 'format_version';
            CREATE TABLE c_people (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL);
            CREATE INDEX i_people_age ON c_people ((NULLIF(body->'age', 'null'::jsonb)));
            CREATE UNIQUE INDEX i_people_email_u ON c_people ((NULLIF(body->'email', 'null'::jsonb)));
            CREATE INDEX i_people_address__city ON c_people ((NULLIF(body->'address'->'city', 'null'::jsonb)));
            INSERT INTO c_people (id, body) SELECT 'p' || lpad(n::text, 3, '0'),
                jsonb_build_object('id', 'p' || lpad(n::text, 3, '0'), 'name', 'P' || n, 'age', 20 + n % 7, 'address', jsonb_build_object('city', 'c' || n % 3))
                || CASE WHEN n % 4 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('email', n || '@x.org') END
                FROM generate_series(1, 200) AS n;
            """)
    }

    @Test func aVersion1StoreIsUpgradedWhenOpened() throws {
        // Made by this engine, then turned into what format version 1 left on the server.
        let first = try fixture.store()
        _ = try first.collection(AnyRecord.self, named: "people")
        let engine = try PostgresRecordEngine(configuration)
        try Self.makeVersion1Store(engine)
        engine.close()

        let store = try fixture.store()
        let people = try store.collection(
            AnyRecord.self, named: "people", indexes: [.field("age"), .unique("email"), .field("address.city")])
        let postgres = try #require(store.engine as? PostgresRecordEngine)
        let layout = try postgres.pool.with { connection in
            try connection.query(
                "SELECT (SELECT value FROM strata_meta WHERE key = 'format_version'), (SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'c_people' AND indexname LIKE 'i\\_%')",
                operation: "test")
        }
        #expect(layout.text(0, 0) == "2")
        let definitions = layout.text(0, 1)
        #expect(!definitions.contains("NULLIF"), "\(definitions)")
        #expect(definitions.contains("(k__age)") && definitions.contains("(k__email) WHERE"), "\(definitions)")
        #expect(definitions.contains("(k__address__city)"), "\(definitions)")
        #expect(try store.verify() == [])

        // The data and every query survive.
        #expect(try people.count() == 200)
        #expect(try people.count(where: Field("age") == 20) == 28)
        #expect(try people.count(where: Field("age") >= 25) == 56)
        #expect(try people.count(where: Field("email").isNull) == 50)
        #expect(try people.count(where: !(Field("email") == "1@x.org")) == 149)
        #expect(try people.count(where: Field("address.city") == "c1") == 67)
        #expect(try people.min(Field("age")) == .integer(20))
        #expect(
            try people.fetch(Query(.all, sort: [SortKey(field: "email", ascending: false)], limit: 1)).map(\.id) == [
                "p009"
            ])
        let plan = try store.queryPlan(for: Query(Field("age") == 22), in: "people").joined(separator: "\n")
        #expect(plan.contains("i_people_age"), "\(plan)")

        // The unique index still refuses a second value, and lets any number of records lack the field.
        let duplicate = try AnyRecord(
            body: .object([ExactString("id"): .string("dup"), ExactString("email"): .string("1@x.org")]))
        let refused = #expect(throws: StorageError.self) { try people.insert(duplicate) }
        #expect(refused?.code == .constraintViolation)
        try people.insert(AnyRecord(body: .object([ExactString("id"): .string("none1")])))
        try people.insert(AnyRecord(body: .object([ExactString("id"): .string("none2")])))
        #expect(try people.count(where: Field("email").isNull) == 52)

        // A process of the previous build, already running, writes no keys: refused, nothing stored.
        let old = #expect(throws: StorageError.self) {
            try postgres.executeForTesting(#"INSERT INTO c_people (id, body) VALUES ('old', '{"age": 30}')"#)
        }
        #expect(old?.sqlState == "23502", "\(old.map { "\($0)" } ?? "")")
        #expect(old?.code == .constraintViolation)
        #expect(try people.get(id: "old") == nil)

        // Opening again changes nothing.
        let again = try fixture.store()
        #expect(try again.collection(AnyRecord.self, named: "people", indexes: [.field("age")]).count() == 202)
    }

    @Test func anIndexAnotherProcessAddsIsWrittenAtOnce() throws {
        // Two engines, each with its own idea of the key columns.
        let a = try fixture.store()
        let b = try fixture.store()
        let inA = try a.collection(AnyRecord.self, named: "items")
        func item(_ id: String, _ rank: Int) throws -> AnyRecord {
            try AnyRecord(body: .object([ExactString("id"): .string(id), ExactString("rank"): .integer(Int64(rank))]))
        }
        try inA.insert(item("x1", 1))
        _ = try b.collection(AnyRecord.self, named: "items", indexes: [.unique("rank")])
        // A does not know the column yet: its insert fails on the server, and runs again with the key.
        try inA.insert(item("x2", 2))
        try inA.insert(contentsOf: [item("x3", 3)])
        #expect(try inA.count(where: Field("rank") >= 2) == 2)
        let clash = #expect(throws: StorageError.self) { try inA.insert(item("x4", 3)) }
        #expect(clash?.code == .constraintViolation)
        // B drops it: A's next write names a column that is gone, and runs again without it.
        try b.engine.migrate { try $0.dropIndex(.unique("rank"), in: "items") }
        try inA.insert(item("x5", 3))
        #expect(try inA.count(where: Field("rank") == 3) == 2)
        #expect(try a.verify() == [])
    }

    struct Price: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var amount: Decimal
    }

    @Test func aDecimalKeysAsWrittenNotAsADouble() throws {
        // 23 significant digits: one Double for all three, three numeric values on the server.
        let store = try fixture.store()
        let prices = try store.collection(Price.self, named: "prices", indexes: [.unique("amount")])
        let amounts = ["12345678901234567890.124", "12345678901234567890.123", "12345678901234567890.1235"]
        try prices.insert(contentsOf: amounts.enumerated().map { Price(id: "p\($0)", amount: Decimal(string: $1)!) })
        let sorted = try prices.fetch(Query(.all, sort: [SortKey(field: "amount", ascending: true)]))
        #expect(sorted.map(\.id) == ["p1", "p2", "p0"])
        let clash = #expect(throws: StorageError.self) {
            try prices.insert(Price(id: "again", amount: Decimal(string: "12345678901234567890.1230")!))
        }
        #expect(clash?.code == .constraintViolation)
    }

    @Test func migrationsAndRelationsKeepKeysTrue() throws {
        let store = try fixture.store()
        let items = try store.collection(AnyRecord.self, named: "items", indexes: [.field("a"), .field("b.c")])
        try items.insert(
            contentsOf: (0..<30).map {
                try AnyRecord(
                    body: .object([
                        ExactString("id"): .string("i\($0)"), ExactString("a"): .integer(Int64($0)),
                        ExactString("b"): .object([ExactString("c"): .integer(Int64($0 % 3))]),
                    ]))
            })
        try store.engine.migrate { session in
            try session.renameField("items", from: Field("a"), to: Field("z"))
            try session.addField("items", Field("a"), value: .string("new"))
            try session.removeField("items", Field("b"))
        }
        #expect(try items.count(where: Field("a") == "new") == 30)
        #expect(try items.count(where: Field("a") == 3) == 0)
        #expect(try items.count(where: Field("b.c").isNull) == 30)
        _ = try store.engine.write { session in
            try session.setNull("items", field: Field("a"), ids: ["i1", "i2"])
            return ((), ["items"])
        }
        #expect(try items.count(where: Field("a").isNull) == 2)
        #expect(try items.count(where: Field("a") == "new") == 28)
    }
}
