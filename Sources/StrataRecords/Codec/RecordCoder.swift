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

    @usableFromInline
    static func decode<R: Decodable>(
        _ type: R.Type, from bytes: UnsafeRawBufferPointer, collection: String, id: String?
    )
        throws -> R
    {
        do {
            return try FastJSONDecoder.decode(type, from: bytes)
        } catch let error as JSONParseError {
            throw StorageError(
                .corrupt, "a stored record is not valid JSON: \(error)", tier: .records, key: id,
                collection: collection,
                operation: "decode")
        } catch let error as DecodingError {
            throw StorageError(
                .typeMismatch, "a stored record does not decode as \(R.self): \(describe(error))", tier: .records,
                key: id,
                collection: collection, operation: "decode",
                recovery: "Add a migration for the change of shape, or make the new field optional")
        }
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
