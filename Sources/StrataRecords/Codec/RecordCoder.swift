import Foundation
import StrataCore

/// Turns records into JSON bytes and back. The one place the store's JSON coding is chosen.
@usableFromInline
enum RecordCoder {
    static func encode<R: Encodable>(_ record: R, collection: String) throws -> [UInt8] {
        try encode(record, collection: collection, with: StreamingJSONEncoder()) { [UInt8]($0) }
    }

    /// Encodes `record` with `encoder` (whose buffer it reuses) and lends the JSON to `body`.
    static func encode<R: Encodable, T>(
        _ record: R, collection: String, with encoder: StreamingJSONEncoder,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        do {
            return try encoder.encode(record, body)
        } catch let error as EncodingError {
            throw StorageError(
                .invalidArgument, "the record cannot be encoded as JSON: \(describe(error))", tier: .records,
                collection: collection, operation: "encode")
        }
    }

    /// Decodes a stored record: with `reader` (`R` as a ``RecordDecodable``, when it is one) or else `Codable`.
    @inlinable
    static func decode<R: Decodable>(
        _ type: R.Type, reader: (any RecordDecodable.Type)?, from bytes: UnsafeRawBufferPointer, collection: String,
        id: String?
    ) throws -> R {
        // The cast is settled at compile time where `R` is known to conform (in a caller specialized for it), and
        // that call specialized too; where it is not, it is a search of the run time's tables, made only when
        // the collection found a reader.
        if reader != nil, let readable = R.self as? any RecordDecodable.Type {
            return try readable.readRecord(from: bytes, as: type, collection: collection, id: id)
        }
        return try decodeCodable(type, from: bytes, collection: collection, id: id)
    }

    /// ``decode(_:reader:from:collection:id:)`` for a caller that has not looked for `R`'s reader.
    static func decode<R: Decodable>(
        _ type: R.Type, from bytes: UnsafeRawBufferPointer, collection: String, id: String?
    ) throws -> R {
        try decode(type, reader: R.self as? any RecordDecodable.Type, from: bytes, collection: collection, id: id)
    }

    /// Decodes a stored record with `Codable`.
    @usableFromInline
    static func decodeCodable<R: Decodable>(
        _ type: R.Type, from bytes: UnsafeRawBufferPointer, collection: String, id: String?
    ) throws -> R {
        do {
            return try FastJSONDecoder.decode(type, from: bytes)
        } catch let error as JSONParseError {
            throw corrupt(error, collection: collection, id: id)
        } catch let error as DecodingError {
            throw typeMismatch(error, type: R.self, collection: collection, id: id)
        }
    }

    /// The store's error for a stored record that is not JSON.
    static func corrupt(_ error: JSONParseError, collection: String, id: String?) -> StorageError {
        StorageError(
            .corrupt, "a stored record is not valid JSON: \(error)", tier: .records, key: id, collection: collection,
            operation: "decode")
    }

    /// The store's error for a stored record that does not decode as `type`.
    static func typeMismatch(_ error: DecodingError, type: Any.Type, collection: String, id: String?) -> StorageError {
        StorageError(
            .typeMismatch, "a stored record does not decode as \(type): \(describe(error))", tier: .records, key: id,
            collection: collection, operation: "decode",
            recovery: "Add a migration for the change of shape, or make the new field optional")
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field '\(path(context.codingPath + [key]))'"
        case DecodingError.typeMismatch(let type, let context):
            return "field '\(path(context.codingPath))' is not a \(type): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            return "field '\(path(context.codingPath))' is null, expected \(type)"
        case DecodingError.dataCorrupted(let context):
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        case EncodingError.invalidValue(_, let context) where context.codingPath.isEmpty:
            return context.debugDescription
        case EncodingError.invalidValue(_, let context):
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

extension StorageError {
    init(
        _ code: Code, _ message: String, tier: Tier, key: String? = nil, collection: String?, operation: String,
        recovery: String? = nil
    ) {
        self.init(code, message, tier: tier, key: key, recovery: recovery)
        self.collection = collection
        self.operation = operation
    }
}
