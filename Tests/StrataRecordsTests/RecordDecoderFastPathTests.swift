import Foundation
import Testing

@testable import StrataRecords

/// Reads its members in an order of its own: backwards, one twice, one missing, one by `contains`.
struct BackwardsReader: Decodable, Equatable {
    enum Key: String, CodingKey { case a, b, c, d, missing }
    var values: [Int]
    var hasMissing: Bool
    var optional: Int?

    init(values: [Int], hasMissing: Bool, optional: Int?) {
        (self.values, self.hasMissing, self.optional) = (values, hasMissing, optional)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        values = [
            try container.decode(Int.self, forKey: .d), try container.decode(Int.self, forKey: .c),
            try container.decode(Int.self, forKey: .a), try container.decode(Int.self, forKey: .c),
            try container.decode(Int.self, forKey: .b),
        ]
        hasMissing = container.contains(.missing)
        optional = try container.decodeIfPresent(Int.self, forKey: .missing)
    }
}

@Suite("Records: the decoder's fast paths (member cursor, word-at-a-time strings, lent tape)")
struct RecordDecoderFastPathTests {
    static func fast<T: Decodable>(_ type: T.Type, _ text: [UInt8]) throws -> T {
        try text.withUnsafeBytes { try FastJSONDecoder.decode(type, from: $0) }
    }

    @Test func membersAreFoundInAnyOrderWhateverTheCursorSaw() throws {
        for text in [#"{"a":1,"b":2,"c":3,"d":4}"#, #"{"d":4,"c":3,"b":2,"a":1}"#, #"{"c":3,"a":1,"d":4,"b":2}"#] {
            let read = try Self.fast(BackwardsReader.self, Array(text.utf8))
            #expect(read == BackwardsReader(values: [4, 3, 1, 3, 2], hasMissing: false, optional: nil))
        }
        #expect(throws: DecodingError.self) { try Self.fast(BackwardsReader.self, Array(#"{"a":1,"b":2,"c":3}"#.utf8)) }
        #expect(throws: DecodingError.self) { try Self.fast(BackwardsReader.self, Array("{}".utf8)) }
    }

    /// Every string spelling at every offset from the start of an 8-byte word reads as Foundation reads it, and
    /// every invalid one is refused as Foundation refuses it.
    @Test func stringsReadTheSameAtEveryOffsetOfAWord() throws {
        let pieces: [[UInt8]] = [
            Array("plain".utf8), Array(#"a\"b"#.utf8), Array(#"back\\slash"#.utf8), Array(#"line\nbreak"#.utf8),
            Array(#"\u00e9t\u00E9"#.utf8), Array("été ✓ 🙂".utf8), Array("tab\there".utf8), [0x61, 0x01, 0x62],
            [0x61, 0xFF, 0x62], [0x61, 0xC3], Array(String(repeating: "long text ", count: 5).utf8),
        ]
        for padding in 0..<17 {
            for piece in pieces {
                let text =
                    Array(#"{"id":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: padding) + piece
                    + Array(#"","n":1}"#.utf8)
                let expected = try? JSONDecoder().decode(OnlyAnID.self, from: Data(text))
                let read = try? Self.fast(OnlyAnID.self, text)
                #expect(read?.id == expected?.id, "padding \(padding), \(String(decoding: piece, as: UTF8.self))")
            }
        }
    }

    @Test func documentsLargerThanTheFirstBuffersDecode() throws {
        let numbers = (0..<20_000).map { $0 * 7 }
        #expect(try Self.fast([Int].self, Array(try JSONEncoder().encode(numbers))) == numbers)
        let wide = Dictionary(uniqueKeysWithValues: (0..<300).map { ("member\($0)", ["v\($0)", "w"]) })
        #expect(try Self.fast([String: [String]].self, Array(try JSONEncoder().encode(wide))) == wide)
        let deep = String(repeating: "[", count: 200) + "1" + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try Self.fast(JSONValue.self, Array(deep.utf8)) }
        var repeated = Array(try JSONEncoder().encode(wide))
        repeated.removeLast()
        repeated += Array(#","member7":[]}"#.utf8)
        #expect(throws: JSONParseError.self) { try Self.fast([String: [String]].self, repeated) }
    }
}
