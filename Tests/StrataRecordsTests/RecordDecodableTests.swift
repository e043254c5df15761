import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// A record read by its own reader, that tells which path made it (`readBy` is not stored).
struct ReaderPerson: Record, RecordDecodable, Equatable {
    enum Path: Sendable { case codable, reader }
    struct Address: Codable, Sendable, Equatable, RecordDecodable {
        var city: String
        var zip: Int?
        init(city: String, zip: Int?) { (self.city, self.zip) = (city, zip) }
        init(record: borrowing RecordReader) throws {
            city = try record.decode(forKey: "city")
            zip = try record.decodeIfPresent(forKey: "zip")
        }
    }
    enum CodingKeys: String, CodingKey { case id, name, age, tags, nickname, address, past }

    var id: String
    var name: String
    var age: Int
    var tags: [String]
    var nickname: String?
    var address: Address?
    var past: [Address]
    var readBy = Path.codable

    init(_ index: Int) {
        id = String(format: "r%04d", index)
        name = "Reader \(index) é"
        age = 18 + index % 50
        tags = index % 2 == 0 ? ["even"] : []
        nickname = index % 3 == 0 ? "n\(index)" : nil
        address = index % 4 == 0 ? nil : Address(city: "City \(index % 7)", zip: index % 5 == 0 ? nil : index)
        past = (0..<(index % 3)).map { Address(city: "Past \($0)", zip: $0) }
    }

    init(record: borrowing RecordReader) throws {
        id = try record.decode(forKey: "id")
        name = try record.decode(forKey: "name")
        age = try record.decode(forKey: "age")
        tags = try record.decode(forKey: "tags")
        nickname = try record.decodeIfPresent(forKey: "nickname")
        address = try record.decodeIfPresent(forKey: "address")
        past = try record.decode(forKey: "past")
        readBy = .reader
    }

    /// The same record as the other path read it.
    func read(by path: Path) -> ReaderPerson {
        var copy = self
        copy.readBy = path
        return copy
    }
}

/// The stored shape of ``ReaderPerson`` with the age as text: what an older version of the app may have written.
struct TextAgePerson: Codable, Identifiable, Sendable {
    var id: String
    var name: String
    var age: String
    var tags: [String]
    var past: [ReaderPerson.Address]
}

/// ``ReaderPerson``'s shape without its name.
struct NamelessPerson: Codable, Identifiable, Sendable {
    var id: String
    var age: Int
    var tags: [String]
    var past: [ReaderPerson.Address]
}

@Suite("Records: RecordDecodable reads every stored record through the type's own reader")
struct RecordDecodableTests {
    @Test(arguments: engines) func everyReadUsesTheReader(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let people = try store.collection(ReaderPerson.self, named: "people", indexes: [.field("age")])
        let written = (0..<40).map(ReaderPerson.init)
        try people.insert(contentsOf: written)
        let expected = written.map { $0.read(by: .reader) }

        #expect(try people.get(id: written[5].id) == expected[5])
        #expect(try people.get(ids: [written[7].id, "none", written[2].id]) == [expected[7], expected[2]])
        // An indexed range, a full scan and a page: each row read by the reader.
        #expect(
            try people.fetch(where: Field("age") >= 20 && Field("age") < 22) == expected.filter { (20..<22) ~= $0.age })
        #expect(
            try people.fetch(where: Field("name").hasPrefix("Reader 1"))
                == expected.filter { $0.name.hasPrefix("Reader 1") })
        #expect(try people.fetch(Query(sort: [.descending("age")], limit: 3)).allSatisfy { $0.readBy == .reader })
        let (one, all) = try store.write { transaction in
            (try transaction(people).get(id: written[9].id), try transaction(people).fetch())
        }
        #expect(one == expected[9])
        #expect(all == expected)
    }

    @Test(arguments: engines) func aMistypedFieldNamesTheRecordTheFieldAndTheCollection(_ engine: RecordEngineKind)
        throws
    {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        try store.collection(TextAgePerson.self, named: "people").insert(
            TextAgePerson(id: "old", name: "Old", age: "forty", tags: [], past: []))
        let people = try store.collection(ReaderPerson.self, named: "people")
        for read in [{ _ = try people.get(id: "old") }, { _ = try people.fetch() }] {
            let error = #expect(throws: StorageError.self) { try read() }
            #expect(error?.code == .typeMismatch)
            #expect(error?.key == "old")
            #expect(error?.collection == "people")
            #expect(error?.operation == "decode")
            #expect(error?.message.contains("field 'age' is not a Int") == true, "\(String(describing: error))")
        }
    }

    @Test(arguments: engines) func aMissingFieldNamesTheRecordTheFieldAndTheCollection(_ engine: RecordEngineKind)
        throws
    {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        try store.collection(NamelessPerson.self, named: "people").insert(
            NamelessPerson(id: "anon", age: 3, tags: [], past: [ReaderPerson.Address(city: "X", zip: 1)]))
        let people = try store.collection(ReaderPerson.self, named: "people")
        let error = #expect(throws: StorageError.self) { _ = try people.get(id: "anon") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == "anon")
        #expect(error?.collection == "people")
        #expect(error?.message.contains("missing field 'name'") == true, "\(String(describing: error))")
        #expect(error?.recovery != nil)
    }

    /// A nested object's missing member and an array element's wrong type are named by their whole path.
    @Test func nestedErrorsNameTheWholePath() throws {
        let missing = #"{"id":"a","name":"n","age":1,"tags":[],"past":[{"city":"A"},{"zip":2}]}"#
        let error = #expect(throws: StorageError.self) {
            try Array(missing.utf8).withUnsafeBytes {
                _ = try RecordCoder.decode(ReaderPerson.self, from: $0, collection: "people", id: "a")
            }
        }
        #expect(error?.message.hasSuffix("missing field 'past.[1].city'") == true, "\(String(describing: error))")
        let mistyped = #"{"id":"a","name":"n","age":1,"tags":["x",2],"past":[]}"#
        let other = #expect(throws: StorageError.self) {
            try Array(mistyped.utf8).withUnsafeBytes {
                _ = try RecordCoder.decode(ReaderPerson.self, from: $0, collection: "people", id: "a")
            }
        }
        #expect(other?.message.contains("field 'tags.[1]' is not a String") == true, "\(String(describing: other))")
    }

    /// The reader answers `contains`, `decodeNil`, `keys` and a nested reader as a keyed container would.
    @Test func readerQueries() throws {
        struct Probe: Codable, Sendable, RecordDecodable {
            var summary: String
            init(record: borrowing RecordReader) throws {
                let inner = try record.nested(forKey: "inner")
                summary = [
                    "\(record.keys)", "\(record.contains("gone"))", "\(record.contains("none"))",
                    "\(record.decodeNil(forKey: "none"))", "\(record.decodeNil(forKey: "gone"))",
                    "\(record.decodeNil(forKey: "inner"))", try inner.decode(String.self, forKey: "t\u{e9}"),
                    RecordCoder.path(inner.codingPath),
                ].joined(separator: " ")
            }
        }
        func read(_ text: String) throws -> Probe {
            try Array(text.utf8).withUnsafeBytes {
                try RecordCoder.decode(Probe.self, from: $0, collection: "probes", id: "p")
            }
        }
        #expect(
            try read(#"{"inner":{"t\u00e9":"x"},"none":null}"#).summary
                == #"["inner", "none"] false true true true false x inner"#)
        let notObject = #expect(throws: StorageError.self) { _ = try read(#"{"inner":[1]}"#) }
        #expect(
            notObject?.message.hasSuffix("field 'inner' is not a Dictionary<String, String>: found an array") == true)
    }
}
