// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    @testable import StrataRecords

    /// Shapes the `record-body` fuzz target also reads with a hand-written ``RecordDecodable`` conformance, whose
    /// outcome must be `Codable`'s on the same bytes (``RecordsFuzzing/recordBody(_:)``): the in-order read, the
    /// fall back to the tape, nested readers and arrays of them.
    struct FuzzReaderPerson: Codable, Equatable, Sendable, RecordDecodable {
        var id: String
        var name: String
        var age: Int
        var score: Double?
        var tags: [String]
        var inner: FuzzReaderInner?
        var items: [FuzzReaderInner]

        init(record: borrowing RecordReader) throws {
            id = try record.decode(forKey: "id")
            name = try record.decode(forKey: "name")
            age = try record.decode(forKey: "age")
            score = try record.decodeIfPresent(forKey: "score")
            tags = try record.decode(forKey: "tags")
            inner = try record.decodeIfPresent(forKey: "inner")
            items = try record.decode(forKey: "items")
        }
    }

    struct FuzzReaderInner: Codable, Equatable, Sendable, RecordDecodable {
        var name: String
        var flag: Bool?
        var small: Int8

        init(record: borrowing RecordReader) throws {
            name = try record.decode(forKey: "name")
            flag = try record.decodeIfPresent(forKey: "flag")
            small = try record.decode(forKey: "small")
        }
    }

    /// Decodes its value with `Decodable` alone, on the same decoder: what a type without a reader gets.
    struct FuzzThroughCodable<Value: Decodable>: Decodable {
        var value: Value
        init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    }
#endif
