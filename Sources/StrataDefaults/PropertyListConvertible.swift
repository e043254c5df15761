public import Foundation
import StrataCore

/// A type stored natively as a property-list value, so the suite file reads naturally in `plutil` and on macOS.
///
/// Bool, the integer types, Double, Float, String, Data, Date, URL, and arrays and string-keyed dictionaries of
/// these conform. Any other `Codable` type is stored as its JSON encoding in a `<data>` value.
public protocol PropertyListConvertible: Sendable {
    /// The value as a property-list value.
    var propertyListValue: PropertyListValue { get }
    /// Reads the value back; `nil` when the property-list value has another type.
    init?(propertyListValue: PropertyListValue)
}

extension PropertyListValue: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { self }
    public init?(propertyListValue: PropertyListValue) { self = propertyListValue }
}

extension Bool: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .bool(self) }
    public init?(propertyListValue: PropertyListValue) {
        switch propertyListValue {
        case .bool(let flag): self = flag
        case .integer(let number) where number == 0 || number == 1: self = number == 1  // `defaults write -int 1`
        default: return nil
        }
    }
}

extension Int: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .integer(Int64(self)) }
    public init?(propertyListValue: PropertyListValue) {
        switch propertyListValue {
        case .integer(let number): self.init(exactly: number)
        case .real(let number): self.init(exactly: number)
        default: return nil
        }
    }
}

extension Int64: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .integer(self) }
    public init?(propertyListValue: PropertyListValue) {
        guard let number = Int(propertyListValue: propertyListValue) else { return nil }
        self.init(number)
    }
}

extension Int32: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .integer(Int64(self)) }
    public init?(propertyListValue: PropertyListValue) {
        guard let number = Int(propertyListValue: propertyListValue) else { return nil }
        self.init(exactly: number)
    }
}

extension Double: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .real(self) }
    public init?(propertyListValue: PropertyListValue) {
        switch propertyListValue {
        case .real(let number): self = number
        case .integer(let number): self = Double(number)
        default: return nil
        }
    }
}

extension Float: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .real(Double(self)) }
    public init?(propertyListValue: PropertyListValue) {
        guard let number = Double(propertyListValue: propertyListValue) else { return nil }
        self.init(number)
    }
}

extension String: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .string(self) }
    public init?(propertyListValue: PropertyListValue) {
        guard case .string(let string) = propertyListValue else { return nil }
        self = string
    }
}

extension Data: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .data(self) }
    public init?(propertyListValue: PropertyListValue) {
        guard case .data(let data) = propertyListValue else { return nil }
        self = data
    }
}

extension Date: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .date(self) }
    public init?(propertyListValue: PropertyListValue) {
        guard case .date(let date) = propertyListValue else { return nil }
        self = date
    }
}

extension URL: PropertyListConvertible {
    /// URLs are stored as their absolute string.
    public var propertyListValue: PropertyListValue { .string(absoluteString) }
    public init?(propertyListValue: PropertyListValue) {
        guard case .string(let string) = propertyListValue, let url = URL(string: string) else { return nil }
        self = url
    }
}

extension Array: PropertyListConvertible where Element: PropertyListConvertible {
    public var propertyListValue: PropertyListValue { .array(map(\.propertyListValue)) }
    public init?(propertyListValue: PropertyListValue) {
        guard case .array(let items) = propertyListValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let element = Element(propertyListValue: item) else { return nil }
            result.append(element)
        }
        self = result
    }
}

/// A `[String: Value]` cannot hold two keys that are canonically equivalent (`"caf\u{E9}"`, `"cafe\u{301}"`): a stored
/// dictionary with such twins does not convert to one (`nil`, a type mismatch) rather than silently losing an entry.
/// Read it as a ``PropertyListValue``, whose keys are ``/StrataCore/ExactString``s, to see both.
extension Dictionary: PropertyListConvertible where Key == String, Value: PropertyListConvertible {
    public var propertyListValue: PropertyListValue {
        .dictionary(
            Dictionary<ExactString, PropertyListValue>(
                uniqueKeysWithValues: map {
                    (ExactString($0.key), $0.value.propertyListValue)
                }))
    }
    public init?(propertyListValue: PropertyListValue) {
        guard case .dictionary(let items) = propertyListValue else { return nil }
        var result: [String: Value] = [:]
        result.reserveCapacity(items.count)
        for (key, item) in items {
            guard let value = Value(propertyListValue: item), result.updateValue(value, forKey: key.string) == nil
            else { return nil }
        }
        self = result
    }
}

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
