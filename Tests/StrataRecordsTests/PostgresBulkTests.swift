import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// The bulk path: inserts and upserts of a pipelined transaction go out as multi-row statements (the inserts of a
/// large transaction as a `COPY`), each record's text kept exactly, and a failed chunk is replayed record by
/// record to name the record that failed.
@Suite("PostgreSQL engine: bulk writes", .enabled(if: engines.contains(.postgres)))
struct PostgresBulkTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    /// Text that an array literal or a COPY line must escape, and text beyond the Basic Multilingual Plane.
    static let hostile = [
        "tab\there", "new\nline", "carriage\rreturn", #"back\slash"#, #"quote"d"#, "{brace}", "comma,comma",
        "NULL", "", " ", "\\\"", "😀 non-BMP 𝄞", "e\u{301} vs é", "\u{1}\u{1F}control", "\\N",
    ]

    @Test func hostileTextSurvivesTheBulkPath() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        // The first 1,000 go out as multi-row statements, the rest as a COPY.
        let records = (0..<2_500).map { index in
            let text = Self.hostile[index % Self.hostile.count]
            return Person(
                id: "\(text)#\(index)", name: text, email: "\(index)@\(text)", age: index, tags: [text, "\(index)"])
        }
        try people.insert(contentsOf: records)
        #expect(try people.count() == records.count)
        for record in records { #expect(try people.get(id: record.id) == record) }
    }

    /// Statements the store's pooled connections send while `body` runs.
    func statements(_ store: RecordStore, _ body: () throws -> Void) throws -> Int {
        let engine = try #require(store.engine as? PostgresRecordEngine)
        let before = engine.pool.idleStatementsSent()
        try body()
        return engine.pool.idleStatementsSent() - before
    }

    @Test func manyInsertsGoOutAsFewStatements() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(0))
        let sent = try statements(store) { try people.insert(contentsOf: (1...5_000).map(person)) }
        #expect(sent <= 50, "\(sent) statements for 5,000 inserts")
        #expect(try people.count() == 5_001)
        #expect(try people.get(id: person(4_321).id) == person(4_321))
    }

    /// A large transaction's inserts stream to the server as a `COPY`, not one statement per 500 records.
    @Test func twentyThousandInsertsStreamAsACopy() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
        try people.insert(person(0))
        let records = (1...20_000).map(person)
        let sent = try statements(store) { try people.insert(contentsOf: records) }
        #expect(sent <= 15, "\(sent) statements for 20,000 inserts")
        #expect(try people.count() == 20_001)
        #expect(try people.fetch(where: Field("age") == 30).count == records.filter { $0.age == 30 }.count)
        for index in stride(from: 1, through: 20_000, by: 997) {
            #expect(try people.get(id: person(index).id) == person(index))
        }
    }

    /// A read in the middle of a `COPY` ends it first and sees its records; the inserts after it start another.
    @Test func aReadInTheMiddleOfACopySeesItsRecords() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try store.write { tx in
            for index in 0..<3_000 { try tx(people).insert(person(index)) }
            #expect(try tx(people).count() == 3_000)
            #expect(try tx(people).get(id: person(2_999).id) == person(2_999))
            for index in 3_000..<6_000 { try tx(people).insert(person(index)) }
            try tx(people).upsert(person(10))
        }
        #expect(try people.count() == 6_000)
        #expect(try people.get(id: person(5_999).id) == person(5_999))
    }

    struct Abandoned: Error {}

    /// A closure that throws while a `COPY` is streaming stores nothing, and the connection is back in normal use.
    @Test func aCopyAbandonedByTheClosureStoresNothing() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        #expect(throws: Abandoned.self) {
            try store.write { tx in
                for index in 0..<5_000 { try tx(people).insert(person(index)) }
                throw Abandoned()
            }
        }
        #expect(try people.count() == 0)
        try people.insert(contentsOf: (0..<3_000).map(person))
        #expect(try people.count() == 3_000)
    }

    /// Upserting one id twice in a chunk keeps the last, as one statement each would.
    @Test func anIDUpsertedTwiceInOneTransactionKeepsTheLast() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try store.write { tx in
            for index in 0..<600 { try tx(people).upsert(person(index % 300)) }
            var changed = person(7)
            changed.name = "changed"
            try tx(people).upsert(changed)
            try tx(people).insert(person(1_000))
            try tx(people).upsert(person(7))
        }
        #expect(try people.count() == 301)
        #expect(try people.get(id: person(7).id) == person(7))
    }

    /// A record that collides with one written earlier in the same chunk is the one named.
    @Test func aCollisionInsideOneChunkNamesTheSecondRecord() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.unique("email")])
        var records = (0..<1_500).map(person)
        records[1_210].email = records[1_205].email
        let error = #expect(throws: StorageError.self) { try people.insert(contentsOf: records) }
        #expect(error?.key == records[1_210].id, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.code == .constraintViolation)
        #expect(try people.count() == 0, "nothing of the failed transaction was committed")
    }

    /// PostgreSQL text cannot hold U+0000: an id with one is refused, never cut short at it.
    @Test func anIDWithNULIsRefused() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        var bad = person(3)
        bad.id = "p\u{0}3"
        let error = #expect(throws: StorageError.self) {
            try people.insert(contentsOf: [person(1), bad, person(2)])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.key == bad.id)
        let single = #expect(throws: StorageError.self) { try people.insert(bad) }
        #expect(single?.code == .invalidArgument)
        #expect(try people.count() == 0)
        #expect(try people.get(id: "p") == nil)
    }

    /// The JSON Lines import takes the bulk path too: a record the server refuses is named, nothing is stored.
    @Test func anImportTheServerRefusesNamesTheRecord() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1_234))
        let path = fixture.directory.path + "/people.jsonl"
        let lines = try (0..<3_000).map { String(decoding: try JSONEncoder().encode(person($0)), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: StorageError.self) { try people.importJSONLines(from: path) }
        #expect(error?.key == person(1_234).id)
        #expect(error?.code == .constraintViolation)
        #expect(try people.count() == 1)
        #expect(try people.importJSONLines(from: path, replacingExisting: true) == 3_000)
        #expect(try people.count() == 3_000)
        #expect(try people.get(id: person(2_999).id) == person(2_999))
    }
}
