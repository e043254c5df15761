import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// A record with members whose index names meet: `f_u` and the unique `f`, `a.b` and `a__b`, `Age` and `age`.
struct NameClash: Codable, Identifiable, Sendable, Equatable {
    struct Inner: Codable, Sendable, Equatable { var b = 0 }
    var id: String
    var f = 0
    var f_u = 0
    var a = Inner()
    var a__b = 0
    var Age = 0
    var age = 0
    var c = 0
    var b_c = 0
}

/// Index names join the collection and the field with `_` and are compared without regard to case, so two indexes
/// can be given one name. `CREATE INDEX IF NOT EXISTS` skipped the second without a word: a field declared unique
/// was not checked (two records with one value were both stored), on both engines. Creating an index whose name
/// another index holds is now refused, naming the collection, the field, the name and the other index.
@Suite("Records: index names that meet")
struct IndexNameTests {
    /// The error of opening the collection `second` with its indexes after `first` with its own, if any.
    static func clash(
        _ store: RecordStore, _ first: (String, [Index]), _ second: (String, [Index])
    ) throws -> StorageError? {
        _ = try store.collection(NameClash.self, named: first.0, indexes: first.1)
        do {
            _ = try store.collection(NameClash.self, named: second.0, indexes: second.1)
            return nil
        } catch let error as StorageError {
            return error
        }
    }

    @Test(arguments: RecordEngineKind.available)
    func aUniqueIndexWhoseNameIsTakenIsRefusedNotSkipped(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let cases: [((String, [Index]), (String, [Index]), String)] = [
            (("t", [.field("f_u")]), ("t", [.unique("f")]), "i_t_f_u"),
            (("a_b", [.unique("c")]), ("a", [.unique("b_c")]), "i_a_b_c_u"),
            (("d", [.unique("a.b")]), ("d", [.unique("a__b")]), "i_d_a__b_u"),
            (("e", [.unique("Age")]), ("e", [.unique("age")]), "i_e_age_u"),
        ]
        for (first, second, name) in cases {
            let error = try Self.clash(store, first, second)
            #expect(error?.code == .invalidArgument, "\(engine): \(first) then \(second)")
            #expect(error?.collection == second.0)
            #expect(error?.operation == "create index")
            #expect(error?.message.lowercased().contains(name) == true, "\(String(describing: error))")
            #expect(error?.message.contains("'\(second.1[0].field.path)'") == true)
            #expect(error?.recovery?.contains("rename") == true)
        }
        // The first index of each pair is there and works: a second record with its unique value is refused.
        let a_b = try store.collection(NameClash.self, named: "a_b", indexes: [.unique("c")])
        try a_b.insert(NameClash(id: "1", c: 5))
        #expect(throws: StorageError.self) { try a_b.insert(NameClash(id: "2", c: 5)) }
        let e = try store.collection(NameClash.self, named: "e", indexes: [.unique("Age")])
        try e.insert(NameClash(id: "1", Age: 5, age: 1))
        #expect(throws: StorageError.self) { try e.insert(NameClash(id: "2", Age: 5, age: 2)) }
        try e.insert(NameClash(id: "3", Age: 6, age: 1))
    }

    /// A PostgreSQL export names its indexes as the server gives them, folded to lower case: read back, an index of
    /// a collection or a field with capitals in its name is still Strata's (it was left out of a restore), and an
    /// index whose definition reads another field than its name says is not.
    @Test func anExportedIndexIsReadBackWhateverTheCaseOfItsNames() {
        let keyed =
            "CREATE UNIQUE INDEX i_people_age_u ON s.c_people USING btree (k__age) WHERE (k__age <> '\\x'::bytea)"
        #expect(
            PostgresExport.index(named: "i_people_age_u", definition: keyed, in: "People", keys: ["k__age": "Age"])
                == .unique("Age"))
        let expression =
            "CREATE INDEX i_people_a__b ON s.c_people USING btree (NULLIF(((body -> 'a'::text) -> 'B'::text), 'null'::jsonb))"
        #expect(
            PostgresExport.index(named: "i_people_a__b", definition: expression, in: "people", keys: [:])
                == .field("a.B"))
        #expect(PostgresExport.index(named: "i_people_a__c", definition: expression, in: "people", keys: [:]) == nil)
    }

    /// Declaring an index again finds it as made, whatever the case of the collection's name (one table: SQL
    /// compares names without regard to case), and a unique field alone in its name is checked.
    @Test(arguments: RecordEngineKind.available)
    func theSameIndexDeclaredAgainIsFound(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let indexes: [Index] = [.unique("f"), .field("a.b"), .field("Age"), .unique("b_c")]
        let people = try store.collection(NameClash.self, named: "People", indexes: indexes)
        _ = try store.collection(NameClash.self, named: "People", indexes: indexes)
        let lower = try store.collection(NameClash.self, named: "people", indexes: indexes)
        try people.insert(NameClash(id: "1", f: 1, b_c: 1))
        #expect(throws: StorageError.self) { try lower.insert(NameClash(id: "2", f: 1, b_c: 2)) }
        #expect(throws: StorageError.self) { try people.insert(NameClash(id: "2", f: 2, b_c: 1)) }
        #expect(try lower.get(id: "1") == NameClash(id: "1", f: 1, b_c: 1))
        let reopened = try fixture.store()
        _ = try reopened.collection(NameClash.self, named: "people", indexes: indexes)
    }
}
