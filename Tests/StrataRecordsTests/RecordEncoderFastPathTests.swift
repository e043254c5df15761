import Foundation
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

/// Writes the same key twice in one object, through a nested container.
private struct RepeatsANestedKey: Encodable {
    enum Key: String, CodingKey { case inner, a }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        var inner = container.nestedContainer(keyedBy: Key.self, forKey: .inner)
        try inner.encode(1, forKey: .a)
        try inner.encode(2, forKey: .a)
    }
}

@Suite("Records: the encoder's fast paths (one reused buffer, in-place digits and strings, scalar arrays)")
struct RecordEncoderFastPathTests {
    struct Numbers: Codable, Equatable {
        var int: Int
        var int8: Int8
        var uint64: UInt64
        var double: Double
        var doubles: [Double]
        var ints: [Int]
    }

    /// One encoder, records of growing and shrinking sizes one after the other: each is exactly what a fresh
    /// encoder (and Foundation's decoder) makes of it, whatever the buffer held before.
    @Test func oneEncoderEncodesRecordAfterRecord() throws {
        let encoder = StreamingJSONEncoder()
        for size in [0, 1, 300, 5, 4_000, 2, 70_000, 0, 17] {
            let tags = (0..<size).map { "tag\($0)" }
            let record = Numbers(int: -size, int8: -128, uint64: .max, double: 0.5, doubles: [1, -2.25], ints: [size])
            let reused = try encoder.encode(tags) { [UInt8]($0) }
            #expect(reused == (try FastJSONEncoder.encode(tags)))
            #expect(try JSONDecoder().decode([String].self, from: Data(reused)) == tags)
            let numbers = try encoder.encode(record) { [UInt8]($0) }
            #expect(try JSONDecoder().decode(Numbers.self, from: Data(numbers)) == record)
        }
    }

    /// Integers are written digit by digit in place: every power of ten, one below it, and the extremes.
    @Test func integersAreWrittenExactly() throws {
        var values: [Int] = [0, 1, -1, 9, 10, -10, .max, .min, .max - 1, .min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power, power - 1, power + 1, -power, -(power - 1)]
        }
        let bytes = try FastJSONEncoder.encode(values)
        #expect(String(decoding: bytes, as: UTF8.self) == "[" + values.map(String.init).joined(separator: ",") + "]")
        let unsigned: [UInt64] = [0, 9, 10, .max, .max - 1, 10_000_000_000_000_000_000]
        #expect(
            String(decoding: try FastJSONEncoder.encode(unsigned), as: UTF8.self)
                == "[" + unsigned.map(String.init).joined(separator: ",") + "]")
        struct Small: Codable, Equatable {
            var a: Int8 = .min
            var b: UInt8 = .max
            var c: Int16 = .min
            var d: Int32 = .min
            var e: Int64 = .min
            var f: UInt32 = .max
        }
        let small = try FastJSONEncoder.encode(Small())
        #expect(String(decoding: small, as: UTF8.self).contains("-9223372036854775808"))
        #expect(try JSONDecoder().decode(Small.self, from: Data(small)) == Small())
    }

    /// Strings that need escaping at every offset of an 8-byte word, and strings that do not, read back the same
    /// through Foundation.
    @Test func stringsAreEscapedAtEveryOffsetOfAWord() throws {
        let specials = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\t", "é", "🙂", "\r"]
        for padding in 0..<17 {
            for special in specials {
                let text = String(repeating: "x", count: padding) + special + String(repeating: "y", count: padding)
                let bytes = try FastJSONEncoder.encode([text])
                #expect(try JSONDecoder().decode([String].self, from: Data(bytes)) == [text], "\(padding)")
                #expect(!bytes.contains { $0 < 0x20 }, "control characters are escaped")
            }
        }
        let bridged = NSString(string: "bridged \"text\" of some length") as String
        #expect(try JSONDecoder().decode([String].self, from: Data(try FastJSONEncoder.encode([bridged]))) == [bridged])
    }

    /// Strings (and member names) are copied a word of eight bytes at a time, the last word gathered and padded:
    /// at every length from 0 to 40, with nothing to escape or with one byte to escape (or a non-ASCII character)
    /// at any place, the output is the string's JSON text and nothing else, whatever the buffer held before.
    @Test func stringsOfEveryLengthAreCopiedExactly() throws {
        let encoder = StreamingJSONEncoder()
        for length in 0...40 {
            let plain = (0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) }
            var texts = [String(plain)]
            for place in 0..<length {
                for special: Character in ["\"", "\\", "\u{01}", "\n", "é", "\u{7F}"] {
                    var characters = plain
                    characters[place] = special
                    texts.append(String(characters))
                }
            }
            for text in texts {
                let json = try encoder.encode([text: [text, "z"]]) { String(decoding: $0, as: UTF8.self) }
                #expect(
                    try JSONDecoder().decode([String: [String]].self, from: Data(json.utf8)) == [text: [text, "z"]],
                    "length \(length)")
                if !text.contains(where: { "\"\\\u{01}\n".contains($0) }) {
                    #expect(json == "{\"\(text)\":[\"\(text)\",\"z\"]}")
                }
            }
        }
    }

    @Test func arraysOfDoublesAreCheckedForNonFiniteValues() throws {
        #expect(throws: EncodingError.self) { try FastJSONEncoder.encode([1.0, .nan]) }
        #expect(throws: EncodingError.self) { try FastJSONEncoder.encode(["x": [Double.infinity]]) }
        #expect(String(decoding: try FastJSONEncoder.encode([1.5, -0.0, 3]), as: UTF8.self) == "[1.5,0,3]")
    }

    /// A repeated key is refused in a nested object too, and the same encoder then encodes the next record cleanly.
    @Test func aRepeatedKeyIsRefusedAndTheEncoderRecovers() throws {
        let encoder = StreamingJSONEncoder()
        #expect(throws: EncodingError.self) { try encoder.encode(RepeatsANestedKey()) { [UInt8]($0) } }
        let next = try encoder.encode(["a": 1]) { String(decoding: $0, as: UTF8.self) }
        #expect(next == #"{"a":1}"#)
    }

    /// The records of one transaction share its encoder; each is stored as itself.
    @Test func aTransactionsRecordsAreEachStoredAsThemselves() throws {
        let folder = try TemporaryDirectory()
        let store = try RecordStore(path: folder.path + "/s.sqlite")
        struct Note: Record, Equatable {
            var id: String
            var text: String
            var counts: [Int]
        }
        let notes = try store.collection(Note.self, named: "notes")
        let written = (0..<50).map {
            Note(id: "n\($0)", text: String(repeating: "t\"\n", count: ($0 * 37) % 400), counts: Array(0..<($0 % 9)))
        }
        try notes.insert(contentsOf: written)
        try store.write { tx in
            for note in written.prefix(10) {
                try tx(notes).update(Note(id: note.id, text: note.text + "!", counts: note.counts.reversed()))
            }
        }
        for (index, note) in written.enumerated() {
            let expected =
                index < 10 ? Note(id: note.id, text: note.text + "!", counts: note.counts.reversed()) : note
            #expect(try notes.get(id: note.id) == expected)
        }
    }
}
