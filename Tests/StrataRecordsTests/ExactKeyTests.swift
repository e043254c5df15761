import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// A record whose two fields are named "café" in NFC and in NFD: two distinct JSON member names.
struct TwinFields: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var composed: Int
    var decomposed: Int
    enum CodingKeys: String, CodingKey {
        case id
        case composed = "caf\u{E9}"
        case decomposed = "cafe\u{301}"
    }
}

@Suite("Records: JSON member names and ids are kept by their exact scalars")
struct ExactKeyTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"
    /// The same object written with raw UTF-8 names and with `\u` escapes.
    static let twinTexts = [
        "{\"id\":\"t\",\"\(nfc)\":1,\"\(nfd)\":2}",
        #"{"id":"t","caf\u00e9":1,"cafe\u0301":2}"#,
        #"{"id":"t","cafe\u0301":2,"caf\u00e9":1}"#,
    ]

    @Test(arguments: twinTexts) func aJSONValueKeepsTwinNames(_ text: String) throws {
        let value = try JSONValue.parse(text)
        guard case .object(let members) = value else { throw WrongShape() }
        #expect(members.count == 3)
        #expect(value[Self.nfc] == .integer(1))
        #expect(value[Self.nfd] == .integer(2))
        // Serialized in byte order of the names, both members there.
        #expect(value.description == "{\"\(Self.nfd)\":2,\"\(Self.nfc)\":1,\"id\":\"t\"}")
        #expect(try JSONValue.parse(value.description) == value)
    }

    @Test(arguments: twinTexts) func codableDecodingLooksNamesUpByTheirScalars(_ text: String) throws {
        let record = try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(TwinFields.self, from: $0) }
        #expect(record == TwinFields(id: "t", composed: 1, decomposed: 2))
        let any = try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(AnyRecord.self, from: $0) }
        #expect(any.body[Self.nfc] == .integer(1) && any.body[Self.nfd] == .integer(2))
    }

    @Test(arguments: engines) func twinNamesSurviveAStoreAndAJSONLinesImport(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let typed = try store.collection(TwinFields.self, named: "typed")
        try typed.insert(TwinFields(id: "a", composed: 1, decomposed: 2))
        #expect(try typed.get(id: "a") == TwinFields(id: "a", composed: 1, decomposed: 2))

        let file = fixture.directory.appending("twins.jsonl")
        try Data(
            Self.twinTexts.enumerated().map { $1.replacingOccurrences(of: "\"t\"", with: "\"t\($0)\"") }
                .joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: file))
        #expect(try typed.importJSONLines(from: file) == 3)
        let untyped = try store.collection(AnyRecord.self, named: "untyped")
        #expect(try untyped.importJSONLines(from: file) == 3)
        for index in 0..<3 {
            #expect(try typed.get(id: "t\(index)") == TwinFields(id: "t\(index)", composed: 1, decomposed: 2))
            let body = try #require(try untyped.get(id: "t\(index)")).body
            #expect(body[Self.nfc] == .integer(1) && body[Self.nfd] == .integer(2), "\(body)")
        }
    }

    @Test(arguments: engines) func idsThatAreCanonicallyEquivalentAreTwoRecords(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let items = try store.collection(BatchItem.self, named: "items")
        try items.insert(BatchItem(id: Self.nfc, batch: 1, payload: "composed"))
        try items.insert(BatchItem(id: Self.nfd, batch: 2, payload: "decomposed"))
        #expect(try items.count() == 2)
        #expect(try items.get(id: Self.nfc)?.payload == "composed")
        #expect(try items.get(id: Self.nfd)?.payload == "decomposed")
        #expect(try items.get(ids: [Self.nfd, Self.nfc]).map(\.payload) == ["decomposed", "composed"])
        #expect(try items.delete(id: Self.nfc))
        #expect(try items.get(id: Self.nfd)?.payload == "decomposed")

        // A JSON Lines file holding both spellings imports two records: they are not "the same id twice".
        let file = fixture.directory.appending("ids.jsonl")
        let lines = [Self.nfc, Self.nfd].map { #"{"id":"\#($0)","batch":3,"payload":"\#($0)"}"# }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        let imported = try store.collection(BatchItem.self, named: "imported")
        #expect(try imported.importJSONLines(from: file) == 2)
        #expect(try imported.get(id: Self.nfc)?.payload == Self.nfc)
        #expect(try imported.get(id: Self.nfd)?.payload == Self.nfd)
        // The same bytes twice is still refused.
        try Data((lines + [lines[0]]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: StorageError.self) {
            try store.collection(BatchItem.self, named: "again").importJSONLines(from: file)
        }
    }

    static let repeatedNames = [
        #"{"id":"t","a":1,"a":2}"#,
        #"{"id":"t","a":1,"\u0061":2}"#,
        #"{"id":"t","x":{"b":1,"b":2}}"#,
    ]

    @Test(arguments: repeatedNames) func aNameGivenTwiceIsRefused(_ text: String) throws {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(throws: (any Error).self) {
            try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(AnyRecord.self, from: $0) }
        }
        let fixture = try RecordsFixture()
        let file = fixture.directory.appending("repeated.jsonl")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let untyped = try fixture.store().collection(AnyRecord.self, named: "untyped")
        let error = #expect(throws: StorageError.self) { try untyped.importJSONLines(from: file) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("appears twice") == true, "\(String(describing: error))")
        #expect(try untyped.count() == 0)
    }

    /// An `encode(to:)` that writes one key twice.
    struct WritesAKeyTwice: Codable, Identifiable {
        var id: String
        enum CodingKeys: String, CodingKey { case id, value }
        init(id: String) { self.id = id }
        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(1, forKey: .value)
            try container.encode(2, forKey: .value)
        }
    }

    @Test func anEncoderThatWritesAKeyTwiceStoresNothing() throws {
        let fixture = try RecordsFixture()
        let collection = try fixture.store().collection(WritesAKeyTwice.self, named: "twice")
        #expect(throws: (any Error).self) { try collection.insert(WritesAKeyTwice(id: "a")) }
        #expect(try collection.count() == 0)
    }

    @Test func manyMembersAreCheckedThroughAHashSet() throws {
        // Past the pairwise limit, names are checked through a set: still exact, still refusing repeats.
        let names = (0..<100).map { "k\($0)" } + [Self.nfc, Self.nfd]
        let text = "{" + names.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        guard case .object(let members) = try JSONValue.parse(text) else { throw WrongShape() }
        #expect(members.count == 102)
        let decoded = try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(JSONValue.self, from: $0) }
        #expect(decoded == .object(members))
        let repeated = "{" + (names + ["k5"]).map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        #expect(throws: (any Error).self) {
            try Data(repeated.utf8).withUnsafeBytes { try FastJSONDecoder.decode(JSONValue.self, from: $0) }
        }
        #expect(throws: (any Error).self) { try FastJSONEncoder.encode(WritesAKeyTwice(id: "x")) }
    }

    struct WrongShape: Error {}
}
