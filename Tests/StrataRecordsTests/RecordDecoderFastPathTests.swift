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

/// Notes the coding paths its decoder and its container report, at whatever depth it is decoded.
struct PathRecorder: Decodable, Equatable {
    enum Key: String, CodingKey { case name }
    var path: String
    var containerPath: String

    init(path: String, containerPath: String) { (self.path, self.containerPath) = (path, containerPath) }

    init(from decoder: any Decoder) throws {
        path = RecordCoder.path(decoder.codingPath)
        let container = try decoder.container(keyedBy: Key.self)
        containerPath = RecordCoder.path(container.codingPath)
        _ = try container.decode(String.self, forKey: .name)
    }
}

struct NestedPaths: Decodable {
    var one: PathRecorder
    var items: [PathRecorder]
    var inner: [String: PathRecorder]
    var grid: [[Int]]?
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

    /// The tape notes whether a string is ASCII while it looks for the string's end, a word of eight bytes at a
    /// time: a byte above 0x7F at any place before the closing quote (valid or not as UTF-8) is seen, and bytes
    /// after the quote in the same word (the next member's) are not taken for the string's.
    @Test func asciiIsToldByTheBytesBeforeTheClosingQuoteOnly() throws {
        let insertions: [[UInt8]] = [Array("é".utf8), [0xFF], [0xC3], Array("🙂".utf8), [0x80]]
        for length in 0..<20 {
            for place in 0...length {
                for insertion in insertions {
                    var value = Array(repeating: UInt8(ascii: "x"), count: length)
                    value.insert(contentsOf: insertion, at: place)
                    // The next member's name starts with bytes above 0x7F right after this string's quote.
                    for after in [#","n":1}"#, #","é":1,"n":1}"#] {
                        let text = Array(#"{"id":""#.utf8) + value + [UInt8(ascii: "\"")] + Array(after.utf8)
                        let expected = try? JSONDecoder().decode(OnlyAnID.self, from: Data(text))
                        let read = try? Self.fast(OnlyAnID.self, text)
                        #expect(read?.id == expected?.id, "length \(length), place \(place), \(insertion)")
                    }
                }
            }
            // All ASCII, followed in the same word by bytes above 0x7F: read as it stands.
            let plain = String(repeating: "y", count: length)
            let text = Array(#"{"id":"\#(plain)","é":"é"}"#.utf8)
            #expect(try Self.fast(OnlyAnID.self, text).id == plain)
        }
    }

    /// Member names are compared a word at a time: a name that differs from the key in any one byte, or is one
    /// byte longer or shorter, is another member, at every length across the word sizes.
    @Test func memberNamesDifferingInAnyByteAreOtherMembers() throws {
        for length in 0..<40 {
            let name = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            var others = [name + [UInt8(ascii: "z")]]
            if length > 0 { others.append(Array(name.dropLast())) }
            for place in 0..<length {
                var other = name
                other[place] ^= 0x01
                others.append(other)
            }
            let key = AnyCodingKey(String(decoding: name, as: UTF8.self))
            func contains(_ members: [[UInt8]]) throws -> Bool {
                let text =
                    "{" + members.map { #""\#(String(decoding: $0, as: UTF8.self))":1"# }.joined(separator: ",") + "}"
                return try Array(text.utf8).withUnsafeBytes { bytes in
                    try JSONTape.read(bytes) { tape in
                        try withUnsafePointer(to: tape) {
                            try ByteDecoder(tape: $0, entry: 0).container(keyedBy: AnyCodingKey.self).contains(key)
                        }
                    }
                }
            }
            #expect(try contains([name]))
            #expect(try contains(others + [name]))
            #expect(try !contains(others), "length \(length)")
            // The repeated-name check compares names the same way: each of the others is a name of its own.
            #expect(throws: Never.self) { try contains(others) }
            #expect(throws: JSONParseError.self) { try contains(others + [name, name]) }
        }
    }

    /// The scan for a string's end flags exactly the quotes, backslashes, control characters and bytes above 0x7F,
    /// and its lowest flag is the first of them (a borrow out of a flagged byte may flag the bytes above it): every
    /// byte value in every place of a word, between plain bytes and before special ones.
    @Test func theStringScanStopsAtTheFirstSpecialOrNonASCIIByte() {
        func stops(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 }
        var wrong: [[UInt8]] = []
        for place in 0..<8 {
            for value in 0...255 {
                for filler: UInt8 in [0x20, 0x21, 0x23, 0x41, 0x5B, 0x5D, 0x7E, 0x7F] {
                    for after in [filler, 0x00, 0x01, 0x22, 0x5C, 0x80, 0xFF] {
                        var bytes = [UInt8](repeating: filler, count: 8)
                        bytes[place] = UInt8(value)
                        for later in (place + 1)..<8 { bytes[later] = after }
                        let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                        let flags = JSONTape.specialOrNonASCIIBytes(word)
                        let first = bytes.firstIndex(where: stops)
                        if (flags == 0) != (first == nil) || first.map({ flags.trailingZeroBitCount / 8 != $0 }) == true
                        {
                            wrong.append(bytes)
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// The repeated-name check compares hashes of the names before their bytes: names with the same first and last
    /// eight bytes (the same hash) that differ between them are two names, and any name given twice is refused, at
    /// every length, in objects checked pair by pair and through a set. Escaped names are compared by their scalars.
    @Test func namesWithTheSameHashAreTwoNamesAndARepeatIsRefused() throws {
        for length in 0..<40 {
            let name = String(repeating: "n", count: length)
            let others = (0..<length).map { place in
                String(repeating: "n", count: place) + "m" + String(repeating: "n", count: length - place - 1)
            }
            let unique = "{" + ([name] + others).map { #""\#($0)":1"# }.joined(separator: ",") + "}"
            #expect(throws: Never.self, "length \(length)") { try Self.fast(JSONValue.self, Array(unique.utf8)) }
            for repeated in [name] + others {
                let text = String(unique.dropLast()) + #","\#(repeated)":2}"#
                #expect(throws: JSONParseError.self, "\(repeated)") { try Self.fast(JSONValue.self, Array(text.utf8)) }
            }
        }
        #expect(throws: JSONParseError.self) { try Self.fast(JSONValue.self, Array(#"{"nn":1,"n\u006e":2}"#.utf8)) }
        #expect(throws: Never.self) { try Self.fast(JSONValue.self, Array(#"{"nn":1,"n\u006d":2}"#.utf8)) }
    }

    /// Numbers as members' values and as elements are checked where they stand (the tape reads them without the
    /// general value path): the RFC 8259 grammar, nothing more and nothing less.
    @Test func numbersAreCheckedAsMembersAndElements() {
        let valid = ["0", "-0", "12", "-12", "1.5", "1e5", "1E+5", "-1.5e-3", "123456789012345678901234567890"]
        let invalid = ["01", "-", "1.", ".5", "1e", "+1", "--1", "0x1", "1.e3", "- 1", "-01", "1e+", "Infinity", "NaN"]
        for (numbers, isValid) in [(valid, true), (invalid, false)] {
            for number in numbers {
                for text in [#"{"n":\#(number)}"#, "[\(number)]", "[1,\(number),2]", #"{"a":[\#(number)],"b":1}"#] {
                    let read = try? Self.fast(JSONValue.self, Array(text.utf8))
                    #expect((read != nil) == isValid, "\(text)")
                }
            }
        }
    }

    /// Strings of up to 15 ASCII bytes are made in place in the standard library's own small form: bit for bit
    /// what `String(decoding:as:)` makes, at every length, alignment and place in the buffer (up to its last byte),
    /// and usable as any other string. Longer ones are left to the standard path.
    @Test func shortASCIIStringsAreMadeInTheStandardLibrarysOwnForm() {
        #expect(SmallASCIIString.isSupported, "64-bit little-endian: the form is checked at startup")
        let alphabet = Array(" ~!#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}".utf8) + [0x7F, 0x00, 0x1F, 0x22]
        for count in 0...17 {
            for offset in 0..<9 {
                // The string ends at the buffer's last byte: nothing past it may be read.
                let bytes = (0..<(offset + count)).map { alphabet[($0 &* 7 &+ count) % alphabet.count] }
                bytes.withUnsafeBytes { buffer in
                    let slice = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                    let expected = String(decoding: slice, as: UTF8.self)
                    guard let made = SmallASCIIString.string(buffer.baseAddress! + offset, count: count) else {
                        #expect(count > SmallASCIIString.capacity)
                        return
                    }
                    #expect(count <= SmallASCIIString.capacity)
                    #expect(made == expected)
                    let (madeLow, madeHigh) = unsafeBitCast(made, to: (UInt64, UInt64).self)
                    let (low, high) = unsafeBitCast(expected, to: (UInt64, UInt64).self)
                    #expect(madeLow == low && madeHigh == high, "count \(count), offset \(offset)")
                    #expect(Set([made, expected]).count == 1)
                    #expect(made.utf8.count == count && Array(made.utf8) == Array(slice))
                    #expect(made + "é" == expected + "é")
                }
            }
        }
    }

    /// The word-at-a-time comparison agrees with comparing arrays, at every length and every place of a difference.
    @Test func byteSpansCompareLikeArrays() {
        for length in 0..<40 {
            let one = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var cases = [(one, true)]
            for place in 0..<length {
                for flip: UInt8 in [0x01, 0x80] {
                    var other = one
                    other[place] ^= flip
                    cases.append((other, false))
                }
            }
            for (other, same) in cases {
                one.withUnsafeBytes { first in
                    other.withUnsafeBytes { second in
                        #expect(ByteSpans.equal(first, second) == same, "length \(length)")
                    }
                }
            }
            // Buffers of different lengths are never equal.
            (one + [0]).withUnsafeBytes { longer in
                one.withUnsafeBytes { #expect(!ByteSpans.equal($0, longer)) }
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

    /// Decoders carry no path: it is read off the tape. Every depth, through keyed and unkeyed containers and
    /// dictionaries, reports the path Foundation's decoder reports, and so do errors.
    @Test func codingPathsAreReadOffTheTape() throws {
        let text = #"{"one":{"name":"a"},"items":[{"name":"b"},{"name":"c"}],"inner":{"k\u00e9":{"name":"d"}}}"#
        for decode in [
            { try Self.fast(NestedPaths.self, Array($0.utf8)) },
            { try JSONDecoder().decode(NestedPaths.self, from: Data($0.utf8)) },
        ] as [(String) throws -> NestedPaths] {
            let read = try decode(text)
            #expect(read.one == PathRecorder(path: "one", containerPath: "one"))
            #expect(read.items.map(\.path) == ["items.[0]", "items.[1]"])
            #expect(read.items.map(\.containerPath) == ["items.[0]", "items.[1]"])
            #expect(read.inner["k\u{E9}"] == PathRecorder(path: "inner.k\u{E9}", containerPath: "inner.k\u{E9}"))
        }
        let failures: [(String, String)] = [
            (#"{"one":{"name":5},"items":[],"inner":{}}"#, "field 'one.name' is not a String"),
            (#"{"one":{"name":"a"},"items":[{"name":"b"},{}],"inner":{}}"#, "missing field 'items.[1].name'"),
            (#"{"one":{"name":"a"},"items":[],"inner":{"x":{"name":[]}}}"#, "field 'inner.x.name' is not a String"),
            (#"{"one":{"name":"a"},"items":[],"inner":{},"grid":[[1],[2,"x"]]}"#, "field 'grid.[1].[1]' is not a Int"),
            (#"{"one":{"name":"a"},"items":[],"inner":{},"grid":[[1],7]}"#, "field 'grid.[1]' is not a Array<Int>"),
        ]
        for (text, expected) in failures {
            do {
                _ = try Self.fast(NestedPaths.self, Array(text.utf8))
                Issue.record("\(text) decoded")
            } catch let error as DecodingError {
                #expect(RecordCoder.describe(error).hasPrefix(expected), "\(RecordCoder.describe(error))")
            }
        }
    }

    /// The tape starts in the spare block and moves to storage of its own when a document outgrows it: at every
    /// size around the move (entries and the names of open objects alike), values read back whole and a repeated
    /// name in an outer object is still found after the move.
    @Test func tapesOfEverySizeAroundTheFirstBlockDecode() throws {
        for count in 0..<(TapeBlock.entries + 8) {
            let numbers = Array(0..<count)
            #expect(try Self.fast([Int].self, Array(try JSONEncoder().encode(numbers))) == numbers)
            let members = Dictionary(uniqueKeysWithValues: numbers.map { ("m\($0)", $0) })
            #expect(try Self.fast([String: Int].self, Array(try JSONEncoder().encode(members))) == members)
        }
        for width in 1..<(TapeBlock.names + 4) {
            // Three objects open at once, each with `width` names before the next one opens.
            func object(_ level: Int) -> String {
                let names = (0..<width).map { #""n\#($0)":\#($0)"# }
                return "{" + (names + (level < 2 ? [#""deep":"# + object(level + 1)] : [])).joined(separator: ",") + "}"
            }
            let text = object(0)
            #expect(throws: Never.self) { try Self.fast(JSONValue.self, Array(text.utf8)) }
            let repeated = String(text.dropLast()) + #","n0":1}"#
            #expect(throws: JSONParseError.self) { try Self.fast(JSONValue.self, Array(repeated.utf8)) }
        }
    }

    /// Offsets on the tape are 32-bit: a document of 2 GiB or more is refused before a byte of it is read.
    @Test func documentsOf2GiBOrMoreAreRefused() {
        var brace = UInt8(ascii: "{")
        withUnsafeBytes(of: &brace) { one in
            let huge = UnsafeRawBufferPointer(start: one.baseAddress, count: Int(Int32.max))
            #expect(throws: JSONParseError.self) { try FastJSONDecoder.decode(JSONValue.self, from: huge) }
        }
    }
}
