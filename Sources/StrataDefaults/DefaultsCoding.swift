import Foundation
package import StrataCore

/// Converts typed values to and from property-list values: natively for ``PropertyListConvertible`` types, by their
/// raw value for raw-representable types with a property-list raw value (``DefaultsRawValue``), as plist arrays and
/// dictionaries of those (``DefaultsCollection``), as JSON data for any other `Codable`. An `Optional` is stored as its wrapped value (see ``DefaultsOptional``).
package enum DefaultsCoding {
    /// The stored form of `value`; `nil` for an `Optional` that is `.none`, which is no value: the key is removed.
    package static func encode<Value: Codable>(_ value: Value, key: String) throws -> PropertyListValue? {
        if let optional = Value.self as? any DefaultsOptional.Type {
            return try optional.encodeWrapped(value, key: key)
        }
        if let native = value as? any PropertyListConvertible { return native.propertyListValue }
        if let raw = DefaultsRawValue.encode(value) { return raw }
        if let collection = value as? any DefaultsCollection, type(of: collection).storesElementsNatively {
            return try collection.encodedElements(key: key)
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .data(try encoder.encode(value))
        } catch {
            throw StorageError(
                .invalidArgument, "cannot encode a \(Value.self) as JSON: \(error)", tier: .defaults, key: key)
        }
    }

    /// Whether values of `type` are stored as property-list values of their own (not as JSON data): the
    /// ``PropertyListConvertible`` types, raw-representable types stored by raw value, and `Optional`s of these.
    static func storesNatively(_ type: Any.Type) -> Bool {
        if let optional = type as? any DefaultsOptional.Type { return storesNatively(optional.wrappedType) }
        if let collection = type as? any DefaultsCollection.Type, collection.storesElementsNatively { return true }
        return type is any PropertyListConvertible.Type || DefaultsRawValue.isStoredByRawValue(type)
    }

    package static func decode<Value: Codable>(
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
        if let raw = try decodeRawValue(type, from: stored, key: key) { return raw }
        // A collection of raw values: its plist form, or (below) the JSON data earlier builds wrote.
        if let collection = Value.self as? any DefaultsCollection.Type, collection.storesElementsNatively,
            let decoded = try collection.decodeElements(from: stored, key: key)
        {
            guard let value = decoded as? Value else { throw mismatch(type, stored, key: key) }
            return value
        }
        guard case .data(let data) = stored else { throw mismatch(type, stored, key: key) }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StorageError(
                .typeMismatch, "the stored data does not decode as \(Value.self): \(error)", tier: .defaults, key: key,
                recovery: "Reset the key, or read it with the type it was written with")
        }
    }

    /// `stored` as a type stored by raw value; `nil` when `type` is not one, or when `stored` is `<data>` of another
    /// raw type: a value written before raw values were stored natively, as JSON, which the caller decodes.
    private static func decodeRawValue<Value: Codable>(
        _ type: Value.Type, from stored: PropertyListValue, key: String
    ) throws(StorageError) -> Value? {
        // A `Data`-backed type's old JSON form is `<data>` too: JSON that decodes as the type is taken for it.
        if DefaultsRawValue.isDataBacked(type), case .data(let data) = stored,
            let old = try? JSONDecoder().decode(Value.self, from: data)
        {
            return old
        }
        switch DefaultsRawValue.decode(type, from: stored) {
        case nil: return nil
        case .value(let value)?:
            guard let value = value as? Value else { throw mismatch(type, stored, key: key) }
            return value
        case .notRawValue?:
            throw StorageError(
                .typeMismatch,
                "the stored \(stored.typeName)\(shortText(of: stored)) is not the raw value of any \(Value.self)",
                tier: .defaults, key: key,
                recovery: "Set the key to a \(Value.self), reset it, or read it with its raw type")
        case .otherType?:
            if case .data = stored { return nil }
            throw mismatch(type, stored, key: key)
        }
    }

    static func mismatch<Value>(_ type: Value.Type, _ stored: PropertyListValue, key: String) -> StorageError {
        StorageError(
            .typeMismatch, "the stored value is a \(stored.typeName), not a \(Value.self)", tier: .defaults, key: key,
            recovery: "Reset the key, or read it with the type it was written with")
    }

    /// ` "purple"`, ` 7`: a scalar's value for an error message (a string cut at 40 characters); empty for others.
    private static func shortText(of stored: PropertyListValue) -> String {
        switch stored {
        case .string(let text): " \"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        case .integer(let number): " \(number)"
        case .real(let number): " \(number)"
        case .bool(let flag): " \(flag)"
        default: ""
        }
    }
}
