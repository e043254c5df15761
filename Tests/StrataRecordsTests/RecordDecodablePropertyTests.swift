import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// A record of every shape a reader reads: scalars at their edges, optionals, arrays, nested readers, and types it
/// hands to `Decodable` (a date, a dictionary, an enum, an array of booleans). Its reader reads the members in the
/// order the synthesized `init(from:)` does, so that a record with several faults fails on the same one.
struct GeneratedRecord: Codable, Sendable, Equatable, RecordDecodable {
    struct Inner: Codable, Sendable, Equatable, RecordDecodable {
        var label: String
        var value: Double?
        var flags: [Bool]
        var deeper: [Inner]?

        init(label: String, value: Double?, flags: [Bool], deeper: [Inner]?) {
            (self.label, self.value, self.flags, self.deeper) = (label, value, flags, deeper)
        }
        init(record: borrowing RecordReader) throws {
            label = try record.decode(forKey: "label")
            value = try record.decodeIfPresent(forKey: "value")
            flags = try record.decode(forKey: "flags")
            deeper = try record.decodeIfPresent(forKey: "deeper")
        }
    }
    enum Kind: String, Codable, Sendable { case alpha, beta, gamma }

    var id: String
    var text: String
    var int: Int
    var int8: Int8
    var int32: Int32
    var uint64: UInt64
    var double: Double
    var float: Float
    var flag: Bool
    var optionalText: String?
    var optionalInt: Int?
    var optionalInt64: Int64?
    var optionalBool: Bool?
    var tags: [String]
    var numbers: [Int]
    var measures: [Double]
    var inner: Inner
    var inners: [Inner]
    var optionalInner: Inner?
    var date: Date
    var counts: [String: Int]
    var kind: Kind
    var optionalKind: Kind?

    init(
        id: String, text: String, int: Int, int8: Int8, int32: Int32, uint64: UInt64, double: Double, float: Float,
        flag: Bool, optionalText: String?, optionalInt: Int?, optionalInt64: Int64?, optionalBool: Bool?,
        tags: [String], numbers: [Int], measures: [Double], inner: Inner, inners: [Inner], optionalInner: Inner?,
        date: Date, counts: [String: Int], kind: Kind, optionalKind: Kind?
    ) {
        (self.id, self.text, self.int, self.int8, self.int32, self.uint64) = (id, text, int, int8, int32, uint64)
        (self.double, self.float, self.flag, self.optionalText) = (double, float, flag, optionalText)
        (self.optionalInt, self.optionalInt64, self.optionalBool) = (optionalInt, optionalInt64, optionalBool)
        (self.tags, self.numbers, self.measures, self.inner, self.inners) = (tags, numbers, measures, inner, inners)
        (self.optionalInner, self.date, self.counts, self.kind) = (optionalInner, date, counts, kind)
        self.optionalKind = optionalKind
    }

    init(record: borrowing RecordReader) throws {
        id = try record.decode(forKey: "id")
        text = try record.decode(forKey: "text")
        int = try record.decode(forKey: "int")
        int8 = try record.decode(forKey: "int8")
        int32 = try record.decode(forKey: "int32")
        uint64 = try record.decode(forKey: "uint64")
        double = try record.decode(forKey: "double")
        float = try record.decode(forKey: "float")
        flag = try record.decode(forKey: "flag")
        optionalText = try record.decodeIfPresent(forKey: "optionalText")
        optionalInt = try record.decodeIfPresent(forKey: "optionalInt")
        optionalInt64 = try record.decodeIfPresent(forKey: "optionalInt64")
        optionalBool = try record.decodeIfPresent(forKey: "optionalBool")
        tags = try record.decode(forKey: "tags")
        numbers = try record.decode(forKey: "numbers")
        measures = try record.decode(forKey: "measures")
        inner = try record.decode(forKey: "inner")
        inners = try record.decode(forKey: "inners")
        optionalInner = try record.decodeIfPresent(forKey: "optionalInner")
        date = try record.decode(forKey: "date")
        counts = try record.decode(forKey: "counts")
        kind = try record.decode(forKey: "kind")
        optionalKind = try record.decodeIfPresent(forKey: "optionalKind")
    }
}

/// Decodes its value with `Decodable` alone: the path a type without a reader takes, on the same decoder.
struct ThroughCodable<Value: Decodable>: Decodable {
    var value: Value
    init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
}

/// Random records, and random changes to their stored text, from a seed.
struct RecordGenerator {
    var random: SeededGenerator

    static let pieces = [
        "", "plain", "é", "e\u{301}", "🙂", "漢字", "\"", "\\", "\n\t\r", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}",
        "/", "long text that is longer than one small string ", "\u{FEFF}", "x\u{10FFFF}",
    ]

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func text() -> String {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in pick(Self.pieces) }.joined()
    }

    mutating func integer<I: FixedWidthInteger>(_ type: I.Type) -> I {
        chance(50) ? pick([I.min, I.max, 0, 1, I.min + 1, I.max - 1]) : I.random(in: I.min...I.max, using: &random)
    }

    mutating func double() -> Double {
        chance(60)
            ? pick([
                0, -0.0, 1, -1, 0.1, 1e308, -1e308, .leastNonzeroMagnitude, .ulpOfOne, .pi, .greatestFiniteMagnitude,
                .leastNormalMagnitude, Double(1 << 53).nextUp, 123_456.789e-300,
            ]) : Double.random(in: -1e9...1e9, using: &random)
    }

    mutating func inner(depth: Int) -> GeneratedRecord.Inner {
        GeneratedRecord.Inner(
            label: text(), value: chance(30) ? nil : double(),
            flags: (0..<Int.random(in: 0...3, using: &random)).map { _ in chance(50) },
            deeper: depth < 2 && chance(40)
                ? (0..<Int.random(in: 0...2, using: &random)).map { _ in inner(depth: depth + 1) } : nil)
    }

    mutating func record(_ index: Int) -> GeneratedRecord {
        GeneratedRecord(
            id: "g\(index)" + text(), text: text(), int: integer(Int.self), int8: integer(Int8.self),
            int32: integer(Int32.self), uint64: integer(UInt64.self), double: double(),
            float: Float(pick([0, 1.5, -3.25, 3.4e38, 1e-45, 16_777_217])), flag: chance(50),
            optionalText: chance(50) ? text() : nil, optionalInt: chance(50) ? integer(Int.self) : nil,
            optionalInt64: chance(50) ? integer(Int64.self) : nil, optionalBool: chance(50) ? chance(50) : nil,
            tags: (0..<Int.random(in: 0...4, using: &random)).map { _ in text() },
            numbers: (0..<Int.random(in: 0...4, using: &random)).map { _ in integer(Int.self) },
            measures: (0..<Int.random(in: 0...3, using: &random)).map { _ in double() }, inner: inner(depth: 0),
            inners: (0..<Int.random(in: 0...3, using: &random)).map { _ in inner(depth: 1) },
            optionalInner: chance(50) ? inner(depth: 1) : nil,
            date: Date(timeIntervalSinceReferenceDate: double()),
            counts: Dictionary(
                uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map { ("k\($0)", $0) }),
            kind: pick([.alpha, .beta, .gamma]), optionalKind: chance(50) ? pick([.alpha, .gamma]) : nil)
    }

    static let names = [
        "id", "text", "int", "int8", "int32", "uint64", "double", "float", "flag", "optionalText", "optionalInt",
        "optionalInt64", "optionalBool", "tags", "numbers", "measures", "inner", "inners", "optionalInner", "date",
        "counts", "kind", "optionalKind",
    ]
    static let replacements = [
        "null", #""text""#, "1.5", "-3", "300", "1e400", "18446744073709551616", "[1]", #"["a",null]"#, "{}",
        #"{"label":1}"#, #"[{"label":"x","flags":[]},null]"#, "true", #""delta""#, "-0",
    ]

    /// The stored text, changed in a way that keeps it valid JSON of the same record (`valid`), or in any way.
    mutating func variant(of bytes: [UInt8], valid: Bool) -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        if valid {
            switch Int.random(in: 0..<5, using: &random) {
            case 0:  // Members in another order (sorted by name).
                return (try? JSONValue.parse(text).serialized()) ?? bytes
            case 1:  // A member the type does not have.
                text.insert(contentsOf: #" "zz":[1,{"a":null}] , "#, at: text.index(after: text.startIndex))
            case 2:  // A name spelled with an escape.
                text = text.replacingOccurrences(of: #""text":"#, with: #""t\u0065xt":"#)
            case 3:  // White space between the tokens.
                text = text.replacingOccurrences(of: ",\"", with: " ,\n\t\"").replacingOccurrences(of: ":", with: " : ")
            default: return bytes
            }
            return Array(text.utf8)
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0:  // Cut short.
            return Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        case 1:  // One byte replaced.
            var changed = bytes
            changed[Int.random(in: 0..<bytes.count, using: &random)] = pick(
                Array(#"{}[]",:0an\ "#.utf8) + [0xFF, 0x01])
            return changed
        case 2, 3:  // A member of another type, or gone.
            guard var value = try? JSONValue.parse(text) else { return bytes }
            let name = pick(Self.names)
            value[name] = chance(20) ? nil : try? JSONValue.parse(pick(Self.replacements))
            if chance(30) { value["inner"]?["label"] = try? JSONValue.parse(pick(Self.replacements)) }
            return value.serialized()
        case 4:  // A member given twice.
            text.insert(contentsOf: #""\#(pick(Self.names))":1,"#, at: text.index(after: text.startIndex))
            return Array(text.utf8)
        default:  // Text that is not UTF-8 inside a string.
            var changed = bytes
            if let quote = changed.indices.dropFirst(8).first(where: { changed[$0] == UInt8(ascii: "\"") }) {
                changed.insert(0xC3, at: quote)
            }
            return changed
        }
    }
}

@Suite("Records: a RecordDecodable reader reads what Codable reads from the same bytes")
struct RecordDecodablePropertyTests {
    /// What the store makes of `bytes` as `T`: the record, or its error.
    static func read<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> Result<T, StorageError> {
        Result {
            try bytes.withUnsafeBytes { try RecordCoder.decode(type, from: $0, collection: "generated", id: "g") }
        }.mapError { $0 as! StorageError }
    }

    /// The part of an error that does not name the record's type: the code, and the field path (type mismatches)
    /// or the parse error (corrupt records).
    static func summary(_ error: StorageError) -> String {
        let detail = error.message.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? ""
        guard error.code == .typeMismatch else { return "\(error.code): \(detail)" }
        let path = detail.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        return "\(error.code): \(path.count > 1 ? String(path[1]) : detail)"
    }

    static func expectSame(_ bytes: [UInt8], _ comment: String) {
        let reader = read(GeneratedRecord.self, bytes)
        let codable = read(ThroughCodable<GeneratedRecord>.self, bytes).map(\.value)
        let text = String(decoding: bytes, as: UTF8.self)
        switch (reader, codable) {
        case (.success(let one), .success(let other)):
            #expect(one == other, "\(comment): \(text)")
        case (.failure(let one), .failure(let other)):
            #expect(one.code == other.code, "\(comment): \(one) / \(other): \(text)")
            #expect(summary(one) == summary(other), "\(comment): \(text)")
            #expect(one.collection == "generated" && one.key == "g" && one.operation == "decode")
        default:
            Issue.record("\(comment): the reader gave \(reader), Codable \(codable): \(text)")
        }
    }

    @Test(arguments: 0..<4) func generatedRecordsReadAsCodableReadsThem(_ seed: Int) throws {
        var generator = RecordGenerator(random: SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9 &+ 7))
        for index in 0..<150 {
            let record = generator.record(index)
            let bytes = try RecordCoder.encode(record, collection: "generated")
            let read = Self.read(GeneratedRecord.self, bytes)
            #expect(try read.get() == record, "seed \(seed), record \(index)")
            for variant in 0..<4 {
                Self.expectSame(
                    generator.variant(of: bytes, valid: true), "seed \(seed) record \(index) valid \(variant)")
            }
        }
    }

    @Test(arguments: 0..<4) func malformedRecordsFailAsCodableFails(_ seed: Int) throws {
        var generator = RecordGenerator(random: SeededGenerator(seed: UInt64(seed) &* 0x2545_F491 &+ 3))
        var failures = 0
        for index in 0..<150 {
            let bytes = try RecordCoder.encode(generator.record(index), collection: "generated")
            for variant in 0..<6 {
                let changed = generator.variant(of: bytes, valid: false)
                if case .failure = Self.read(GeneratedRecord.self, changed) { failures += 1 }
                Self.expectSame(changed, "seed \(seed) record \(index) malformed \(variant)")
            }
        }
        // Most changes break the record (a few land where any value will do).
        #expect(failures > 450)
    }
}
