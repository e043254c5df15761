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
