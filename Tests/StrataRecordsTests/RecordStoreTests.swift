import Foundation
import StrataConformance
import StrataCore
import StrataPostgres
import StrataTestSupport
import Testing

@testable import StrataRecords

struct Person: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var name: String
    var email: String
    var age: Int
    var tags: [String]
    var nickname: String? = nil
}

struct Folder: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct Note: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var folderID: Int?
    var text: String
}

func person(_ index: Int) -> Person {
    Person(
        id: String(format: "p%05d", index), name: "Person \(index)", email: "p\(index)@example.com",
        age: 18 + index % 60,
        tags: index % 2 == 0 ? ["even", "t\(index % 5)"] : ["odd"])
}

/// The engines every shared test body runs against: SQLite always, PostgreSQL when the test server is up.
let engines = RecordEngineKind.available

/// A fresh store on one engine; `path` is the SQLite file or the `postgres:<schema>` location.
struct RecordsFixture {
    let location: RecordStoreLocation
    var directory: TemporaryDirectory { location.directory }
    var path: String { location.location }
    init(_ engine: RecordEngineKind = .sqlite) throws { location = try RecordStoreLocation(engine) }
    func store(migrations: [Migration] = [], configuration: RecordsConfiguration? = nil) throws -> RecordStore {
        try location.open(migrations: migrations, configuration: configuration)
    }
}

@Suite("Records test server")
struct RecordsServerTests {
    @Test func postgresIsTestedInCI() {
        // CI starts a server (Scripts/postgres.sh): there the PostgreSQL half of every shared test must run.
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(engines.contains(.postgres), "CI=true but STRATA_POSTGRES_URL is not set")
        }
    }
}

@Suite("RecordStore: CRUD and queries")
struct RecordCRUDTests {
    /// A store with a `people` collection indexed on age and unique on email.
    struct Setup {
        let fixture: RecordsFixture
        let store: RecordStore
        let people: RecordCollection<Person>

        init(_ engine: RecordEngineKind) throws {
            fixture = try RecordsFixture(engine)
            store = try fixture.store()
            people = try store.collection(Person.self, named: "people", indexes: [.field("age"), .unique("email")])
        }
    }

    @Test(arguments: engines) func insertGetUpdateUpsertDelete(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let people = setup.people
        let ada = Person(id: "ada", name: "Ada", email: "ada@example.com", age: 36, tags: ["math"])
        try people.insert(ada)
        #expect(try people.get(id: "ada") == ada)
        #expect(try people.get(id: "nobody") == nil)
        let duplicate = #expect(throws: StorageError.self) { try people.insert(ada) }
        #expect(duplicate?.code == .constraintViolation)
        #expect(duplicate?.collection == "people")
        #expect(duplicate?.detail != nil)
        var older = ada
        older.age = 37
        try people.update(older)
        #expect(try people.get(id: "ada")?.age == 37)
        let missing = #expect(throws: StorageError.self) {
            try people.update(Person(id: "ghost", name: "", email: "g@x", age: 0, tags: []))
        }
        #expect(missing?.code == .notFound)
        try people.upsert(Person(id: "ghost", name: "Ghost", email: "g@x", age: 1, tags: []))
        #expect(try people.count() == 2)
        #expect(try people.get(ids: ["ghost", "none", "ada"]).map(\.id) == ["ghost", "ada"])
        #expect(try people.delete(id: "ghost"))
        #expect(try !people.delete(id: "ghost"))
        #expect(try people.count() == 1)
    }

    @Test(arguments: engines) func uniqueFieldIsEnforced(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let people = setup.people
        try people.insert(person(1))
        var clash = person(2)
        clash.email = person(1).email
        let error = #expect(throws: StorageError.self) { try people.insert(clash) }
        #expect(error?.code == .constraintViolation)
        #expect(try people.count() == 1)
    }

    @Test(arguments: engines) func queriesFilterSortPageAndAggregate(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let people = setup.people
        try people.insert(contentsOf: (0..<200).map(person))
        let adults = try people.fetch(Query(Field("age") >= 70, sort: [.descending("age"), .ascending("name")]))
        #expect(!adults.isEmpty && adults.allSatisfy { $0.age >= 70 })
        #expect(adults.map(\.age) == adults.map(\.age).sorted(by: >))
        #expect(try people.count(where: Field("age") >= 70) == adults.count)
        #expect(try people.fetch(where: Field("age").isIn([18, 19])).allSatisfy { $0.age == 18 || $0.age == 19 })
        #expect(try people.count(where: Field("name").hasPrefix("Person 19")) == 11)  // 19, 190...199
        #expect(try people.count(where: Field("name").contains("son 1")) == 111)  // 1, 10-19, 100-199
        #expect(try people.count(where: Field("tags").contains("even")) == 100)
        #expect(try people.count(where: Field("nickname").isNull) == 200)
        #expect(try people.count(where: Field("nickname").isNotNull) == 0)
        #expect(
            try people.count(where: Field("age") < 20 || Field("age") > 76)
                == people.count(where: !(Field("age") >= 20 && Field("age") <= 76)))
        let page = try people.fetch(Query(.all, sort: [.ascending("email")], limit: 10, offset: 5))
        #expect(page.count == 10)
        #expect(page.first?.email == (try people.fetch(Query(.all, sort: [.ascending("email")]))[5].email))
        #expect(try people.min("age") == .integer(18))
        #expect(try people.max("age") == .integer(77))
        #expect(try people.sum("age", where: Field("id") == "p00000") == .integer(18))
        #expect(try people.max("age", where: Field("age") > 1000) == nil)
        #expect(try people.delete(where: Field("age") < 20) == 8)  // indexes 0, 1, 60, 61, 120, 121, 180, 181
        #expect(try people.count(where: Field("age") < 20) == 0)
    }

    @Test(arguments: engines) func valuesAreBoundNeverInterpolated(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let people = setup.people
        try people.insert(person(1))
        let hostile = "x' OR '1'='1"
        #expect(try people.count(where: Field("name") == .text(hostile)) == 0)
        #expect(try people.count(where: Field("name").contains(hostile)) == 0)
        for bad in ["age; DROP TABLE c_people", "a'b", "", "a..b", "$.age"] {
            let error = #expect(throws: StorageError.self) { try people.count(where: Field(bad) == 1) }
            #expect(error?.code == .invalidArgument)
        }
        #expect(try people.count() == 1)
    }

    @Test(arguments: engines) func moreQueryShapesThanTheStatementCacheHolds(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let all = (0..<120).map(person)
        try setup.people.insert(contentsOf: all)
        // 300 different statements (an `isIn` of 1, 2, … values): past both engines' cache limit of 256.
        for size in 1...300 {
            let ages = (0..<size).map { Int64(18 + $0 % 80) }
            let expected = all.filter { ages.contains(Int64($0.age)) }.count
            #expect(try setup.people.count(where: Field("age").isIn(ages.map { .integer($0) })) == expected)
        }
    }

    @Test(arguments: engines) func indexedQueriesUseTheirIndex(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let (store, people) = (setup.store, setup.people)
        try people.insert(contentsOf: (0..<50).map(person))
        // SQLite says "SEARCH c_people USING INDEX i_people_age"; PostgreSQL "Index Scan using i_people_age".
        let plan = try store.queryPlan(for: Query(Field("age") == 30), in: "people").joined(separator: "\n")
        #expect(plan.contains("i_people_age"), "\(plan)")
        let range = try store.queryPlan(for: Query(Field("email").hasPrefix("p1")), in: "people").joined(
            separator: "\n")
        // A prefix is an index range on SQLite, and on PostgreSQL when text sorts bytewise (C collation).
        if (store.engine as? PostgresRecordEngine)?.sortsTextBytewise != false {
            #expect(range.contains("i_people_email_u"), "\(range)")
        }
        let scan = try store.queryPlan(for: Query(Field("name") == "x"), in: "people").joined(separator: "\n")
        #expect(scan.uppercased().contains("SCAN") && !scan.contains("i_people"), "\(scan)")
    }

    @Test(arguments: engines) func transactionsAreAllOrNothing(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let (store, people) = (setup.store, setup.people)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.write { tx in
                try tx(people).insert(person(1))
                try tx(people).insert(person(2))
                #expect(try tx(people).count() == 2)
                throw Stop()
            }
        }
        #expect(try people.count() == 0)
        try store.write { tx in
            try tx(people).insert(person(1))
            try tx(people).insert(person(2))
        }
        #expect(try people.count() == 2)
        #expect(throws: StorageError.self) {
            try store.write { tx in
                try tx(people).insert(person(3))
                try tx(people).insert(person(1))  // duplicate id: the whole transaction goes
            }
        }
        #expect(try people.count() == 2)
    }

    @Test(arguments: engines) func concurrentReadersWhileWriting(_ engine: RecordEngineKind) async throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let people = setup.people
        try people.insert(contentsOf: (0..<100).map(person))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for index in 100..<300 { try people.insert(person(index)) } }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        let count = try people.count()
                        #expect(count >= 100 && count <= 300)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try people.count() == 300)
    }

    @Test(arguments: engines) func lightweightOptionalFieldNeedsNoMigration(_ engine: RecordEngineKind) throws {
        let setup = try Setup(engine)
        defer { withExtendedLifetime(setup) {} }
        let store = setup.store
        struct Old: Codable, Identifiable, Sendable { var id: String; var name: String }
        let old = try store.collection(Old.self, named: "evolving")
        try old.insert(Old(id: "a", name: "A"))
        struct New: Codable, Identifiable, Sendable { var id: String; var name: String; var color: String? }
        let new = try store.collection(New.self, named: "evolving")
        #expect(try new.get(id: "a")?.color == nil)
        struct Required: Codable, Identifiable, Sendable { var id: String; var name: String; var color: String }
        let strict = try store.collection(Required.self, named: "evolving")
        let error = #expect(throws: StorageError.self) { try strict.get(id: "a") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("color") == true)
    }
}

@Suite("RecordStore: relations")
struct RecordRelationTests {
    @Test(arguments: engines, [Relation.DeleteRule.cascade, .nullify, .deny])
    func deleteRules(_ engine: RecordEngineKind, _ rule: Relation.DeleteRule) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let folders = try store.collection(Folder.self, named: "folders")
        let notes = try store.collection(Note.self, named: "notes")
        try store.relate(notes, field: "folderID", to: folders, onDelete: rule)
        try folders.insert(Folder(id: 1, title: "Home"))
        try folders.insert(Folder(id: 2, title: "Work"))
        let ids = (0..<5).map { _ in UUID() }
        for (index, id) in ids.enumerated() {
            try notes.insert(Note(id: id, folderID: index < 3 ? 1 : 2, text: "n\(index)"))
        }
        #expect(try store.related(notes, field: "folderID", of: 1).count == 3)
        switch rule {
        case .cascade:
            #expect(try folders.delete(id: 1))
            #expect(try notes.count() == 2)
        case .nullify:
            #expect(try folders.delete(id: 1))
            #expect(try notes.count() == 5)
            #expect(try notes.count(where: Field("folderID").isNull) == 3)
        case .deny:
            let error = #expect(throws: StorageError.self) { try folders.delete(id: 1) }
            #expect(error?.code == .constraintViolation)
            #expect(error?.message.contains("3 record(s) of 'notes'") == true)
            #expect(try folders.count() == 2 && notes.count() == 5)
        }
    }
}

@Suite("RecordStore: migrations")
struct RecordMigrationTests {
    struct V1: Codable, Identifiable, Sendable { var id: String; var mail: String; var first: String; var last: String }
    struct V3: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var email: String
        var fullName: String
        var active: Bool
    }

    static let migrations = [
        Migration(
            2, [.addField("users", "active", default: .bool(true)), .renameField("users", from: "mail", to: "email")]),
        Migration(
            3,
            [
                .transform("users") { user in
                    if case .string(let first)? = user["first"], case .string(let last)? = user["last"] {
                        user["fullName"] = .string(first + " " + last)
                    }
                },
                .removeField("users", "first"), .removeField("users", "last"), .addIndex("users", .unique("email")),
            ]),
    ]

    @Test(arguments: engines) func fromV1ToV3OverTenThousandRecords(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        do {
            let store = try fixture.store(migrations: [Migration(1, [])])
            let users = try store.collection(V1.self, named: "users")
            try users.insert(
                contentsOf: (0..<10_000).map { V1(id: "u\($0)", mail: "u\($0)@x.org", first: "F\($0)", last: "L\($0)") }
            )
        }
        let store = try fixture.store(migrations: Self.migrations)
        let users = try store.collection(V3.self, named: "users")
        #expect(try users.count() == 10_000)
        #expect(try users.get(id: "u42") == V3(id: "u42", email: "u42@x.org", fullName: "F42 L42", active: true))
        let plan = try store.queryPlan(for: Query(Field("email") == "u1@x.org"), in: "users").joined(separator: "\n")
        #expect(plan.contains("i_users_email_u"))
        // Opening again runs nothing.
        _ = try fixture.store(migrations: Self.migrations)
    }

    @Test(arguments: engines) func aFailingMigrationChangesNothing(_ engine: RecordEngineKind) throws {
        struct Boom: Error {}
        let fixture = try RecordsFixture(engine)
        do {
            let store = try fixture.store(migrations: [Migration(1, [])])
            try store.collection(V1.self, named: "users").insert(V1(id: "a", mail: "a@x", first: "A", last: "B"))
        }
        #expect(throws: Boom.self) {
            try fixture.store(migrations: [
                Migration(1, []),
                Migration(
                    2, [.addField("users", "active", default: .bool(true)), .transform("users") { _ in throw Boom() }]),
            ])
        }
        let store = try fixture.store(migrations: [Migration(1, [])])
        // Untyped: `active` is not a field of V1, and a typed collection refuses a query on it.
        let raw = try store.collection(AnyRecord.self, named: "users")
        #expect(try raw.count(where: Field("active").isNull) == 1, "the addField step was rolled back")
    }

    @Test(arguments: engines) func aNewerStoreIsRefused(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        _ = try fixture.store(migrations: Self.migrations)
        let error = #expect(throws: StorageError.self) { try fixture.store(migrations: [Migration(2, [])]) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message.contains("version 3") == true)
    }
}
