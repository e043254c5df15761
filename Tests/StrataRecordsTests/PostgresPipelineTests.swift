import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// Transactions in libpq's pipeline mode: writes go out without waiting for each other, so a transaction costs
/// one round trip plus one per read, and a write that fails is reported by its record, with nothing committed.
@Suite("PostgreSQL engine: pipelined transactions", .enabled(if: engines.contains(.postgres)))
struct PostgresPipelineTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    /// The round trips the store's pooled connections make while `body` runs.
    func roundTrips(_ store: RecordStore, _ body: () throws -> Void) throws -> Int {
        let engine = try #require(store.engine as? PostgresRecordEngine)
        let before = engine.pool.idleRoundTrips()
        try body()
        return engine.pool.idleRoundTrips() - before
    }

    @Test func aTransactionOfManyWritesCostsOneRoundTrip() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
        try people.insert(person(0))  // opens the pool's connection
        let batch = try roundTrips(store) { try people.insert(contentsOf: (1...1_000).map(person)) }
        #expect(batch == 1, "BEGIN, 1,000 inserts and COMMIT in one round trip")
        let mixed = try roundTrips(store) {
            try store.write { tx in
                try tx(people).upsert(person(1))
                try tx(people).insert(person(1_001))
                #expect(try tx(people).get(id: person(1_001).id) == person(1_001), "a read sees the writes before it")
                #expect(try tx(people).count() == 1_002)
                try tx(people).insert(person(1_002))
            }
        }
        #expect(mixed == 3, "one round trip per read, and one for the writes after them and the commit")
        #expect(try people.count() == 1_003)
    }

    /// Ways a write can fail on the server, each reported for the record that failed.
    enum BadWrite: String, CaseIterable, Sendable {
        case duplicateID, duplicateUniqueField, textTheServerCannotStore
    }

    /// Each failure at 700 (a multi-row statement) and at 1,700 (in the `COPY` of the records after 1,000).
    @Test(arguments: BadWrite.allCases, [700, 1_700])
    func aFailedWriteNamesItsRecordAndNothingIsCommitted(_ bad: BadWrite, at position: Int) throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.unique("email")])
        try people.insert(person(0))
        var records = (1...2_000).map(person)
        switch bad {
        case .duplicateID: records[position] = person(0)
        case .duplicateUniqueField: records[position].email = person(0).email
        case .textTheServerCannotStore: records[position].name = "a\u{0}b"  // jsonb cannot hold U+0000
        }
        let error = #expect(throws: StorageError.self) { try people.insert(contentsOf: records) }
        #expect(error?.key == records[position].id, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.code == (bad == .textTheServerCannotStore ? .invalidArgument : .constraintViolation))
        #expect(error?.operation == "insert")
        #expect(error?.collection == "people")
        if bad == .duplicateID { #expect(error?.message.contains("already exists") == true) }
        #expect(try people.count() == 1, "nothing of the failed transaction was committed")
        // The connection is back in normal use.
        try people.insert(contentsOf: [person(1), person(2)])
        #expect(try people.count() == 3)
    }

    /// A failure the server reported while the closure was still writing stops it at its next write, which
    /// reports the record that failed, not the one being written.
    @Test func aFailureSeenMidTransactionStopsTheClosureAndNamesTheFailedRecord() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(5))
        var written = 0
        let error = #expect(throws: StorageError.self) {
            try store.write { tx in
                for index in 0..<20_000 {
                    try tx(people).insert(person(index))
                    written += 1
                }
            }
        }
        #expect(error?.key == person(5).id)
        #expect(error?.code == .constraintViolation)
        #expect(written < 20_000, "the closure stopped once the failure was known")
        #expect(try people.count() == 1)
    }

    /// A swallowed failure still fails the commit, with the record named; the writes after it changed nothing.
    @Test func aSwallowedFailureInAPipelineFailsTheCommit() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        let error = #expect(throws: StorageError.self) {
            try store.write { tx in
                try? tx(people).insert(person(1))
                try? tx(people).insert(person(2))
            }
        }
        #expect(error?.key == person(1).id)
        #expect(error?.code == .constraintViolation)
        #expect(try people.get(id: person(2).id) == nil)
    }
}
