import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// A point get and a write of one record outside a transaction: what each sends the server, and what the client
/// works out once instead of on every call.
@Suite("PostgreSQL engine: point operations", .enabled(if: engines.contains(.postgres)))
struct PostgresPointOperationTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    /// The round trips and statements the store's pooled connections make while `body` runs.
    func traffic(_ store: RecordStore, _ body: () throws -> Void) throws -> (roundTrips: Int, statements: Int) {
        let engine = try #require(store.engine as? PostgresRecordEngine)
        let (trips, statements) = (engine.pool.idleRoundTrips(), engine.pool.idleStatementsSent())
        try body()
        return (engine.pool.idleRoundTrips() - trips, engine.pool.idleStatementsSent() - statements)
    }

    @Test func eachPointOperationIsOneStatementInOneRoundTrip() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.field("age"), .unique("email")])
        // The first of each prepares its statement on the connection.
        try people.insert(person(0))
        try people.upsert(person(0))
        try people.update(person(0))
        _ = try people.get(id: person(0).id)
        let gets = try traffic(store) {
            for index in 0..<10 {
                let found = try people.get(id: person(index % 2).id)
                #expect(found == (index % 2 == 0 ? person(0) : nil))
            }
        }
        #expect(gets == (10, 10), "a get: its statement, one round trip")
        let writes = try traffic(store) {
            for index in 1...10 { try people.insert(person(index)) }
            for index in 1...10 {
                var changed = person(index)
                changed.age += 1
                try people.upsert(changed)
            }
            for index in 1...10 { try people.update(person(index)) }
        }
        #expect(writes == (30, 30), "an insert, upsert or update: one statement (with its NOTIFY), one round trip")
        #expect(try people.fetch(where: Field("age") == person(3).age).map(\.id).contains(person(3).id))
    }

    @Test func aGetByAnIDWithNULFindsNoRecord() throws {
        // PostgreSQL's text cannot hold U+0000, so no record has such an id (writes refuse it): a get finds
        // nothing, rather than the record whose id is the part before the NUL.
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        #expect(try people.get(id: person(1).id + "\u{0}x") == nil)
        #expect(try people.get(ids: [person(1).id + "\u{0}x", person(1).id]) == [person(1)])
        #expect(try store.write { try $0(people).get(id: person(1).id + "\u{0}") } == nil)
        #expect(try people.get(id: person(1).id) == person(1))
    }

    @Test func aTextValueWithNULIsRefusedNeverCutShort() throws {
        // libpq ends a value in the text format at its first NUL byte: a statement sent with one would read or
        // write another value without a word. Every such parameter is refused, naming the operation.
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        let error = #expect(throws: StorageError.self) { try people.delete(id: person(1).id + "\u{0}") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("U+0000") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.operation == "delete")
        #expect(try people.get(id: person(1).id) == person(1), "nothing was deleted")
        let written = #expect(throws: StorageError.self) {
            try people.upsert(Person(id: "a\u{0}b", name: "", email: "", age: 1, tags: []))
        }
        #expect(written?.code == .invalidArgument)
        #expect(try people.count() == 1)
    }

    @Test func aRecordsLockKeyIsTheSameInEveryProcess() throws {
        // The advisory lock key of a record, which writers of every process and version must agree on: 64 bits
        // of FNV-1a over `strata-row:<schema>:<collection>:<id>`.
        let store = try fixture.store()
        let engine = try #require(store.engine as? PostgresRecordEngine)
        func fnv1a(_ text: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int64(bitPattern: hash)
        }
        let schema = engine.configuration.schema
        for (collection, id) in [("counters", "x"), ("people", "p00001"), ("a", ""), ("people", "é:∑ with spaces")] {
            #expect(engine.rowLockKey(collection, id) == fnv1a("strata-row:\(schema):\(collection):\(id)"))
        }
    }
}
