import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// Hostile values for PostgreSQL's key columns (format version 2): the keys order as the server's `jsonb` does, and
/// an index changes no query's result, for numbers at the edges of `numeric`, strings with escapes, and values
/// whose type changes from record to record.
@Suite("PostgreSQL index keys, hostile values", .enabled(if: engines.contains(.postgres)))
struct PostgresIndexKeyAdversarialTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    static let values: [String] = [
        "-0.00", "0e-5", "-0e+5", "0.000", "1E+400", "1e-400", "-1E-400", "1e-16383", "9e-16383",
        "1234567890123456789012345678901234567890", "1234567890123456789012345678901234567891",
        "-1234567890123456789012345678901234567890", "9007199254740993.0", "9007199254740992.5", "0.30000000000000004",
        "0.3", "5e-324", "1.7976931348623157e308", "12.34e-1", "1.234", "1.2340", "100e-2", "1", "10e-1", "0.01e2",
        "-0.5", "-0.05", "-5e-2", "-50e-3", "1e131071", "99.99", "100", "0.999999999999999999999", "101", "1.01",
        "1001", "10.01", #""""#, #""\"""#, #""\\""#, #""\/""#, #""/""#, #""e\u0301""#, #""é""#, #""\u00e9""#,
        #""\ud83d\ude00""#, #""😀""#, #""\uffff""#, #""%""#, #""_""#, #""a%""#, #""a_""#, #""\\%""#, #""\u007f""#,
        #""\u0080""#, "[[],[]]", "[[[]]]", "[[],1]", "[1,[]]", #"[{},[]]"#, #"[[],{}]"#, #"{"a":[],"b":{}}"#,
        #"{"\u0061":1}"#, #"{"é":1}"#, #"{"e\u0301":1}"#, #"{"":1}"#, #"{"":null}"#, "[null,null]", "[false]",
        "[true,false]", #"[["a"],["b"]]"#, #"{"a":{"a":{"a":1}}}"#, #"{"a":{"a":{"a":2}}}"#, #"{"a":"","b":""}"#,
        #"{"ab":1,"b":1}"#, #"{"b":1,"ab":1}"#,
    ]

    @Test func keysOrderAsTheServersJSONB() throws {
        let engine = try PostgresRecordEngine(RecordStoreLocation.postgresConfiguration(fixture.path))
        defer { engine.close() }
        _ = try PostgresIndexKeyTests.expectKeysOrderAndCompareAsTheServer(Self.values, engine: engine)
    }

    static func record(_ id: String, _ json: String?) throws -> AnyRecord {
        let text = #"{"id":"\#(id)""# + (json.map { #","v":\#($0)"# } ?? "") + "}"
        return try AnyRecord(body: Array(text.utf8).withUnsafeBytes { try JSONValue.parse($0) })
    }

    /// Writes records with raw JSON bodies (numbers as written), `id` and `v` (nil: missing).
    static func insert(_ records: [(id: String, json: String?)], into collection: String, of store: RecordStore)
        throws
    {
        _ = try store.engine.write { session in
            for (id, json) in records {
                let text = #"{"id":"\#(id)""# + (json.map { #","v":\#($0)"# } ?? "") + "}"
                _ = try Array(text.utf8).withUnsafeBytes {
                    try session.write(collection, id: id, body: $0, mode: .insert)
                }
            }
            return ((), [collection])
        }
    }

    static func ids(_ store: RecordStore, _ collection: String, _ query: Query) throws -> [String] {
        try store.engine.read(snapshot: false) { session in
            var ids: [String] = []
            try session.select(collection, query) { id, _ in if !id.hasPrefix("filler") { ids.append(id) } }
            return ids
        }
    }

    static func aggregate(
        _ store: RecordStore, _ collection: String, _ aggregate: RecordAggregate, _ predicate: StrataRecords.Predicate
    ) -> String {
        do {
            return
                "\(try store.engine.read(snapshot: false) { try $0.aggregate(collection, aggregate, of: Field("v"), matching: predicate) } as Any)"
        } catch {
            return "error \(type(of: error)): \(error)"
        }
    }

    @Test func anIndexChangesNoResultOnHostileValues() throws {
        let store = try fixture.store()
        _ = try store.collection(AnyRecord.self, named: "plain")
        _ = try store.collection(AnyRecord.self, named: "indexed", indexes: [.field("v")])
        let values = Self.values.filter { $0 != "1e131071" } + ["null"]
        let records: [(id: String, json: String?)] =
            values.enumerated().map { (String(format: "r%03d", $0), $1) } + [("missing", nil)]
            + (0..<500).map { (String(format: "filler%05d", $0), nil) }
        try Self.insert(records, into: "plain", of: store)
        try Self.insert(records, into: "indexed", of: store)
        let v = Field("v")
        let compared: [QueryValue] = [
            .integer(1), .real(1.0), .real(-0.0), .real(0.3), .real(0.30000000000000004), .real(.leastNonzeroMagnitude),
            .real(1.7976931348623157e308), .real(.nan), .real(.infinity), .text(""), .text("é"), .text("e\u{301}"),
            .text("😀"), .text("%"), .text("\\"), .text("/"), .text("\""), .bool(false), .integer(Int64.max),
            .integer(Int64.min),
        ]
        var predicates: [StrataRecords.Predicate] = [
            v.hasPrefix("%"), v.hasPrefix("_"), v.hasPrefix("\\"), v.hasPrefix(""), v.hasPrefix("e"),
            v.hasPrefix("\u{FFFF}"), v.hasPrefix("😀"), v.isIn([.integer(1), .text("1"), .real(0.3), .bool(false)]),
            v.isIn([.null, .integer(1)]), !v.isIn([.null, .integer(1)]), !v.isIn([]), v.isIn([]),
            !(v > .integer(0)), !(v.hasPrefix("")), !(v == .text("")) && v.isNotNull, !(!v.isNull),
            (v > .integer(0)) || v.isNull, !((v > .integer(0)) || v.isNull), !(v < .text("a") && v > .text("")),
        ]
        for value in compared {
            predicates += [v == value, v != value, v < value, v <= value, v > value, v >= value, !(v >= value)]
        }
        for predicate in predicates {
            let query = Query(predicate)
            let expected = try Self.ids(store, "plain", query)
            #expect(try Self.ids(store, "indexed", query) == expected, "\(predicate)")
        }
        for ascending in [true, false] {
            for (limit, offset) in [(200, 0), (7, 3), (0, 0), (1000, 50), (5, 10_000)] {
                let query = Query(.all, sort: [SortKey(field: v, ascending: ascending)], limit: limit, offset: offset)
                #expect(
                    try Self.ids(store, "indexed", query) == Self.ids(store, "plain", query),
                    "ascending: \(ascending) \(limit) \(offset)")
            }
        }
        for predicate in [
            StrataRecords.Predicate.all, v > .integer(0), v < .text("z"), v.isIn([.integer(1), .text("a")]),
        ] {
            for aggregate in [RecordAggregate.min, .max] {
                let (indexed, plain) = (
                    Self.aggregate(store, "indexed", aggregate, predicate),
                    Self.aggregate(store, "plain", aggregate, predicate)
                )
                #expect(indexed == plain, "\(aggregate) \(predicate)")
            }
        }
    }

    @Test func aNULCharacterInAnIndexedFieldIsRefusedWithATypedError() throws {
        let store = try fixture.store()
        let items = try store.collection(AnyRecord.self, named: "items", indexes: [.field("v")])
        let one = #expect(throws: StorageError.self) {
            try Self.insert([("nul", #""a\u0000b""#)], into: "items", of: store)
        }
        #expect(one?.code == .invalidArgument && one?.key == "nul", "\(one.map { "\($0)" } ?? "")")
        // In a batch long enough to go out as `COPY`: the record is named.
        let many = (0..<300).map { (id: "m\($0)", json: Optional($0 == 250 ? #""a\u0000b""# : "\($0)")) }
        let batch = #expect(throws: StorageError.self) { try Self.insert(many, into: "items", of: store) }
        #expect(batch?.code == .invalidArgument && batch?.key == "m250", "\(batch.map { "\($0)" } ?? "")")
        #expect(try items.count() == 0)
    }

    @Test func uniqueIndexOnNumbersEqualAsNumeric() throws {
        let store = try fixture.store()
        let items = try store.collection(AnyRecord.self, named: "items", indexes: [.unique("v")])
        try Self.insert(
            [("a", "1"), ("n1", "null"), ("n2", "null"), ("m1", nil), ("m2", nil)], into: "items", of: store)
        for other in ["1.0", "1e0", "10e-1", "1.000000000000000000000000000000000000", "0.1e1"] {
            let clash = #expect(throws: StorageError.self) { try Self.insert([("b", other)], into: "items", of: store) }
            #expect(clash?.code == .constraintViolation, "\(other)")
        }
        try Self.insert([("c", "1.0000000000000000000000000000000000001")], into: "items", of: store)
        #expect(try items.count(where: Field("v") == .integer(1)) == 1)
        #expect(try items.count(where: Field("v").isNull) == 4)
    }

}

extension PostgresIndexKeyAdversarialTests {
    /// `Age` and `age` (PostgreSQL folds unquoted names), `a.b` and `a__b`: one key column name. The second field
    /// keeps no column and is indexed on its `jsonb` value, as in format version 1; its queries and its uniqueness
    /// hold.
    @Test func fieldsWhoseKeyColumnNamesMeetKeepTheirQueriesAndUniqueness() throws {
        let store = try fixture.store()
        func body(_ pairs: [(String, Int64)], id: String) throws -> AnyRecord {
            try AnyRecord(
                body: .object(
                    [ExactString("id"): .string(id)].merging(
                        pairs.map { (ExactString($0.0), JSONValue.integer($0.1)) }, uniquingKeysWith: { a, _ in a })))
        }
        for (name, upper, lower) in [("cases", "Age", "age"), ("dots", "a.b", "a__b")] {
            let items = try store.collection(
                AnyRecord.self, named: name, indexes: [.field(Field(upper)), .unique(Field(lower))])
            let (top, nested) =
                upper.contains(".") ? ((Field(upper).components[0]), true) : (upper, false)
            func record(_ id: String, upper u: Int64, lower l: Int64) throws -> AnyRecord {
                guard nested else { return try body([(upper, u), (lower, l)], id: id) }
                return try AnyRecord(
                    body: .object([
                        ExactString("id"): .string(id),
                        ExactString(top): .object([ExactString(Field(upper).components[1]): .integer(u)]),
                        ExactString(lower): .integer(l),
                    ]))
            }
            try items.insert(contentsOf: [record("x", upper: 1, lower: 2), record("y", upper: 1, lower: 3)])
            #expect(try items.count(where: Field(upper) == 1) == 2, "\(name)")
            #expect(try items.count(where: Field(lower) == 2) == 1, "\(name)")
            #expect(try items.count(where: Field(lower) == 1) == 0, "\(name)")
            let clash = #expect(throws: StorageError.self) { try items.insert(record("z", upper: 5, lower: 3)) }
            #expect(clash?.code == .constraintViolation, "\(name)")
            let problems = try store.verify()
            #expect(problems == [], "\(name)")
        }
        // Opening again, as another process would, changes nothing.
        let again = try fixture.store()
        _ = try again.collection(AnyRecord.self, named: "cases", indexes: [.field("Age"), .unique("age")])
        #expect(try again.verify() == [])
    }

    /// Makes the store what format version 1 left on the server (``PostgresIndexKeyTests/makeVersion1Store(_:)``),
    /// then runs `sql` on it.
    func makeVersion1Store(_ sql: String) throws {
        let first = try fixture.store()
        _ = try first.collection(AnyRecord.self, named: "people")
        let engine = try PostgresRecordEngine(RecordStoreLocation.postgresConfiguration(fixture.path))
        try PostgresIndexKeyTests.makeVersion1Store(engine)
        try engine.executeForTesting(sql)
        engine.close()
    }

    @Test func aVersion1StoreWithHostileValuesIsUpgraded() throws {
        let values = Self.values.filter { !$0.contains("131071") }
        try makeVersion1Store(
            "INSERT INTO c_people (id, body) SELECT 'h' || lpad(o::text, 3, '0'), jsonb_build_object('age', v, 'w', v) FROM unnest("
                + "'" + PostgresSQL.arrayLiteral(values).replacingOccurrences(of: "'", with: "''")
                + "'::jsonb[]) WITH ORDINALITY AS t(v, o); "
                + "CREATE TABLE c_plain AS SELECT id, body FROM c_people; ALTER TABLE c_plain ADD PRIMARY KEY (id)")
        let store = try fixture.store()
        _ = try store.collection(
            AnyRecord.self, named: "people",
            indexes: [.field("age"), .unique("email"), .field("address.city"), .field("w")])
        let age = Field("age")
        for predicate: StrataRecords.Predicate in [
            age > .integer(0), age < .integer(1), age == .real(0.3), age.hasPrefix("é"), age.hasPrefix("e"),
            age == .text("\\"), age.isNull, age > .text(""), age == .integer(1),
        ] {
            let query = Query(predicate, sort: [SortKey(field: age, ascending: true)])
            #expect(try Self.ids(store, "people", query) == Self.ids(store, "plain", query), "\(predicate)")
        }
        #expect(try store.verify() == [])
    }

    @Test func aVersion1StoreWithFieldsWhoseKeyColumnNamesMeetIsUpgraded() throws {
        try makeVersion1Store(
            #"""
            CREATE TABLE c_cases (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL);
            CREATE INDEX i_cases_Age ON c_cases ((NULLIF(body->'Age', 'null'::jsonb)));
            CREATE UNIQUE INDEX i_cases_age_u ON c_cases ((NULLIF(body->'age', 'null'::jsonb)));
            INSERT INTO c_cases VALUES ('x', '{"id":"x","Age":1,"age":2}'), ('y', '{"id":"y","Age":1,"age":3}');
            """#)
        let store = try fixture.store()
        let cases = try store.collection(AnyRecord.self, named: "cases", indexes: [.field("Age"), .unique("age")])
        #expect(try cases.count(where: Field("Age") == 1) == 2)
        #expect(try cases.count(where: Field("age") == 3) == 1)
        let clash = #expect(throws: StorageError.self) {
            try cases.insert(
                AnyRecord(body: .object([ExactString("id"): .string("w"), ExactString("age"): .integer(2)])))
        }
        #expect(clash?.code == .constraintViolation)
        #expect(try store.verify() == [])
    }
}

extension PostgresIndexKeyAdversarialTests {
    /// A member name escaped as `\u212A` (KELVIN SIGN, canonically equivalent to `K`) is not the field `Key`:
    /// `jsonb` compares names by their bytes, and so must the key.
    @Test func anEscapedNameCanonicallyEquivalentToAFieldIsNotTheField() throws {
        let store = try fixture.store()
        for name in ["plain", "indexed"] {
            _ = try store.collection(AnyRecord.self, named: name, indexes: name == "plain" ? [] : [.field("Key")])
            _ = try store.engine.write { session in
                for (id, text) in [
                    ("kelvin", #"{"id":"kelvin","\u212Aey":5}"#), ("both", #"{"id":"both","\u212Aey":6,"Key":7}"#),
                ] {
                    _ = try Array(text.utf8).withUnsafeBytes {
                        try session.write(name, id: id, body: $0, mode: .insert)
                    }
                }
                return ((), [name])
            }
        }
        for predicate: StrataRecords.Predicate in [
            Field("Key") == 5, Field("Key") == 6, Field("Key") == 7, Field("Key").isNull,
        ] {
            let query = Query(predicate)
            #expect(try Self.ids(store, "indexed", query) == Self.ids(store, "plain", query), "\(predicate)")
        }
        #expect(try Self.ids(store, "indexed", Query(Field("Key") == 7)) == ["both"])
    }
}

extension PostgresIndexKeyAdversarialTests {
    /// The migrations compute keys again from the bodies the server returns (numbers as `numeric` prints them).
    @Test func migrationsOnHostileValuesKeepKeysTrue() throws {
        let store = try fixture.store()
        let values = Self.values.filter { $0 != "1e131071" } + ["null"]
        let records: [(id: String, json: String?)] =
            values.enumerated().map { (String(format: "r%03d", $0), $1) } + [("missing", nil)]
        for name in ["plain", "indexed"] {
            _ = try store.collection(
                AnyRecord.self, named: name, indexes: name == "plain" ? [] : [.field("w"), .field("u")])
            try Self.insert(records, into: name, of: store)
        }
        try store.engine.migrate { session in
            for name in ["plain", "indexed"] {
                try session.renameField(name, from: Field("v"), to: Field("w"))
                try session.addField(name, Field("u"), value: .string("same"))
                try session.removeField(name, Field("u"))
                try session.addField(name, Field("w"), value: .integer(1))
            }
        }
        let w = Field("w")
        for predicate: StrataRecords.Predicate in [
            w > .integer(0), w <= .real(1.0), w == .integer(1), w.isNull, w.hasPrefix(""), w > .text(""),
            w == .bool(false), !(w == .integer(1)),
        ] {
            let query = Query(predicate, sort: [SortKey(field: w, ascending: false)])
            #expect(try Self.ids(store, "indexed", query) == Self.ids(store, "plain", query), "\(predicate)")
        }
        // Only the record whose `v` was JSON `null` (`addField` fills missing fields only).
        #expect(try Self.ids(store, "indexed", Query(w.isNull)).count == 1)
        #expect(try Self.ids(store, "indexed", Query(Field("u").isNotNull)) == [])
        #expect(try store.verify() == [])
    }

    /// A process that read a collection's key columns before another process indexed a field writes the new
    /// column too when it changes a body on the server side of an `UPDATE`: its statement finds the columns
    /// changed, it reads them again and runs again (an `UPDATE` leaves a column it does not name as it was, so
    /// `NOT NULL` alone would not stop it).
    @Test func aProcessThatMissedANewIndexKeepsTheKeyTrueOnUpdateAndSetNull() throws {
        let a = try fixture.store()
        let b = try fixture.store()
        let inA = try a.collection(AnyRecord.self, named: "items")
        try inA.insert(Self.record("x", "1"))
        let inB = try b.collection(AnyRecord.self, named: "items", indexes: [.field("v")])
        try inA.update(Self.record("x", "5"))
        #expect(try inB.count(where: Field("v") == .integer(5)) == 1)
        #expect(try inB.count(where: Field("v") == .integer(1)) == 0)
        // A server-side change of a field another process indexed since this one read the columns.
        let otherInA = try a.collection(AnyRecord.self, named: "other")
        try otherInA.insert(Self.record("y", #""owner""#))
        let otherInB = try b.collection(AnyRecord.self, named: "other", indexes: [.field("v")])
        _ = try a.engine.write { session in
            try session.setNull("other", field: Field("v"), ids: ["y"])
            return ((), ["other"])
        }
        #expect(try otherInB.count(where: Field("v") == .text("owner")) == 0)
        #expect(try otherInB.count(where: Field("v").isNull) == 1)
        #expect(try a.verify() == [])
    }

    /// `min` and `max` of numbers beyond `Double`'s range read as the infinity or zero they round to, as SQLite's
    /// engine reads them, with and without an index, instead of failing to parse the server's answer.
    @Test func minAndMaxOfNumbersBeyondDoubleReadAsTheirRounding() throws {
        let store = try fixture.store()
        for (name, indexes) in [("plain", [Index]()), ("indexed", [.field("v")])] {
            _ = try store.collection(AnyRecord.self, named: name, indexes: indexes)
            try Self.insert(
                [("huge", "1E+400"), ("tiny", "1e-400"), ("one", "1"), ("none", nil)], into: name, of: store)
            let max = try store.engine.read(snapshot: false) {
                try $0.aggregate(name, .max, of: Field("v"), matching: .all)
            }
            let min = try store.engine.read(snapshot: false) {
                try $0.aggregate(name, .min, of: Field("v"), matching: Field("v") > .integer(0))
            }
            #expect(max == .real(.infinity), "\(name)")
            #expect(min == .real(0), "\(name)")
        }
    }

    /// A body nested deeper than the records tier's JSON reader follows cannot be keyed: the write is refused with
    /// `invalid-argument` naming the collection and the record, and nothing of it is stored.
    @Test func aBodyTooDeepToKeyIsRefusedNamingItsRecord() throws {
        let store = try fixture.store()
        _ = try store.collection(AnyRecord.self, named: "deep", indexes: [.field("v")])
        let nested = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let refused = #expect(throws: StorageError.self) {
            try Self.insert([("ok", "1"), ("d", nested)], into: "deep", of: store)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.collection == "deep")
        #expect(refused?.key == "d")
        #expect(try Self.ids(store, "deep", Query(.all)) == [])
    }
}
