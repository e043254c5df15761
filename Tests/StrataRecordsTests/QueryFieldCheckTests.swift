import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// A record with fields a probe cannot know all of: a dictionary, a `JSONValue`, an enum with associated values,
/// an optional that no record has, and a value whose decoding refuses placeholders.
struct Loose: Codable, Identifiable, Sendable {
    enum Source: Codable, Sendable { case feed(id: Int), upload(size: Int) }
    struct Checked: Codable, Sendable {
        var code: String
        init(code: String) { self.code = code }
        init(from decoder: any Decoder) throws {
            code = try decoder.singleValueContainer().decode(String.self)
            guard !code.isEmpty else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty"))
            }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(code)
        }
    }
    struct Note: Codable, Sendable { var text: String }
    var id: String
    var labels: [String: String]
    var extra: JSONValue
    var source: Source
    var note: Note?
    var checked: Checked?
    var tags: [String]
}

/// A misspelled field (`Field("titel")`) returned no rows and no error; it is now refused with `invalid-argument`
/// naming the field, the record type and the nearest field it has, on both engines. Fields a probe cannot know
/// (dictionaries, `JSONValue`, optionals absent from every record) are still accepted.
@Suite("Records: query fields are checked against the record type")
struct QueryFieldCheckTests {
    static func refusal(_ body: () throws -> Void) -> StorageError? {
        do {
            try body()
            return nil
        } catch let error as StorageError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: engines)
    func anUnknownFieldIsRefusedNamingTheNearest(_ engine: RecordEngineKind) throws {
        let (fixture, episodes) = try QueryValueTests.episodes(engine)
        defer { withExtendedLifetime(fixture) {} }
        let cases: [(String, () throws -> Void, String)] = [
            ("titel", { _ = try episodes.fetch(where: Field("titel") == "Episode 1") }, "title"),
            ("feedId", { _ = try episodes.fetch(where: Field("feedId") == "daily") }, "feedID"),
            ("show.ctiy", { _ = try episodes.fetch(where: Field("show.ctiy") == "Oslo") }, "show.city"),
            ("publised", { _ = try episodes.fetch(Query(sort: [.descending("publised")])) }, "published"),
            ("secnds", { _ = try episodes.count(where: Field("secnds") > 1) }, "seconds"),
            ("ratin", { _ = try episodes.max("ratin") }, "rating"),
            ("title.first", { _ = try episodes.fetch(where: Field("title.first").isNull) }, "title"),
            ("explicitt", { _ = try episodes.delete(where: Field("explicitt") == true) }, "explicit"),
        ]
        for (field, body, nearest) in cases {
            let error = Self.refusal(body)
            #expect(error?.code == .invalidArgument, "\(engine): \(field): \(String(describing: error))")
            #expect(error?.tier == .records)
            #expect(error?.collection == "episodes")
            #expect(error?.message.contains("'\(field)'") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Episode") == true, "\(String(describing: error))")
            #expect(error?.message.contains("did you mean '\(nearest)'") == true, "\(String(describing: error))")
            #expect(error?.recovery?.contains("show.city") == true, "\(String(describing: error))")
        }
        #expect(try episodes.count() == 10, "nothing was deleted")
        let store = episodes.store
        #expect(Self.refusal { _ = try episodes.min("kidn") }?.message.contains("did you mean 'kind'") == true)
        // In a transaction too.
        let inTransaction = Self.refusal {
            try store.write { tx in _ = try tx(episodes).fetch(Query(Field("Title") == "x")) }
        }
        #expect(inTransaction?.message.contains("did you mean 'title'") == true, "\(String(describing: inTransaction))")
    }

    @Test(arguments: engines)
    func fieldsAProbeCannotKnowAreAccepted(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let loose = try store.collection(Loose.self, named: "loose")
        try loose.insert(
            Loose(
                id: "a", labels: ["lang": "en"], extra: .object(["deep": .object(["x": .integer(1)])]),
                source: .feed(id: 7), note: nil, checked: Loose.Checked(code: "k"), tags: ["t"]))
        #expect(try loose.fetch(where: Field("labels.lang") == "en").map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("extra.deep.x") == 1).map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("source.feed.id") == 7).map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("note.text").isNull).map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("note").isNull).map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("checked") == "k").map(\.id) == ["a"])
        #expect(try loose.fetch(where: Field("tags").contains("t")).map(\.id) == ["a"])
        #expect(
            Self.refusal { _ = try loose.fetch(where: Field("note.txt") == "x") }?.message
                .contains("did you mean 'note.text'") == true)
        #expect(
            Self.refusal { _ = try loose.fetch(where: Field("lables.lang") == "x") }?.message
                .contains("did you mean 'labels'") == true)
        // A collection of any record (the tool's view) has no type to check against.
        let any = try store.collection(AnyRecord.self, named: "loose")
        #expect(try any.fetch(where: Field("whatever") == 1).isEmpty)
    }

    /// A folder that holds its parent: the probe follows it to a limit instead of forever.
    final class Folder: Codable, Identifiable, @unchecked Sendable {  // Immutable after init.
        let id: String
        let name: String
        let parent: Folder?
        init(id: String, name: String, parent: Folder?) {
            (self.id, self.name, self.parent) = (id, name, parent)
        }
    }

    @Test func aTypeThatHoldsItselfIsProbedToALimit() throws {
        let fixture = try RecordsFixture()
        let folders = try fixture.store().collection(Folder.self, named: "folders")
        try folders.insert(Folder(id: "b", name: "B", parent: Folder(id: "a", name: "A", parent: nil)))
        #expect(try folders.fetch(where: Field("parent.name") == "A").map(\.id) == ["b"])
        #expect(try folders.fetch(where: Field("parent.parent.parent.name") == "A").isEmpty)
        #expect(
            Self.refusal { _ = try folders.fetch(where: Field("parent.nmae") == "A") }?.message
                .contains("did you mean 'parent.name'") == true)
    }

    @Test func theNearestFieldIsTheFewestEditsAway() {
        let fields = ["title", "feedID", "published", "show", "show.city", "show.name"]
        #expect(FieldDistance.nearest(to: "titel", among: fields) == "title")
        #expect(FieldDistance.nearest(to: "FEEDID", among: fields) == "feedID")
        #expect(FieldDistance.nearest(to: "show.cty", among: fields) == "show.city")
        #expect(FieldDistance.nearest(to: "x", among: []) == nil)
    }
}
