import Foundation
import StrataCore

/// Converts typed values to and from property-list values: natively for ``PropertyListConvertible`` types,
/// as JSON data for any other `Codable`. An `Optional` is stored as its wrapped value (see ``DefaultsOptional``).
enum DefaultsCoding {
    /// The stored form of `value`; `nil` for an `Optional` that is `.none`, which is no value: the key is removed.
    static func encode<Value: Codable>(_ value: Value, key: String) throws -> PropertyListValue? {
        if let optional = Value.self as? any DefaultsOptional.Type {
            return try optional.encodeWrapped(value, key: key)
        }
        if let native = value as? any PropertyListConvertible { return native.propertyListValue }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .data(try encoder.encode(value))
        } catch {
            throw StorageError(
                .invalidArgument, "cannot encode a \(Value.self) as JSON: \(error)", tier: .defaults, key: key)
        }
    }

    static func decode<Value: Codable>(
        _ type: Value.Type, from stored: PropertyListValue, key: String
    ) throws(StorageError) -> Value {
        if let optional = Value.self as? any DefaultsOptional.Type {
            guard let value = try optional.decodeWrapped(from: stored, key: key) as? Value else {
                throw mismatch(type, stored, key: key)
            }
            return value
        }
        if let native = Value.self as? any PropertyListConvertible.Type {
            guard let value = native.init(propertyListValue: stored) as? Value else {
                throw mismatch(type, stored, key: key)
            }
            return value
        }
        guard case .data(let data) = stored else { throw mismatch(type, stored, key: key) }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StorageError(
                .typeMismatch, "the stored data does not decode as \(Value.self): \(error)", tier: .defaults, key: key)
        }
    }

    static func mismatch<Value>(_ type: Value.Type, _ stored: PropertyListValue, key: String) -> StorageError {
        StorageError(
            .typeMismatch, "the stored value is a \(stored.typeName), not a \(Value.self)", tier: .defaults, key: key,
            recovery: "Reset the key, or read it with the type it was written with")
    }
}
