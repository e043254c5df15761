import Foundation
import StrataCore

/// Raw-representable types (`enum Theme: String`, `enum Quality: Int`) whose raw value is a property-list scalar,
/// as ``DefaultsCoding`` stores them: by the raw value itself (`"dark"`, `3`), the way `UserDefaults` users and
/// sindresorhus/Defaults store them, so a `DefaultsKey<String>`, `strata defaults get` and any plist reader see it.
///
/// The raw types: `String`, `Bool`, `Double`, `Float`, `Data`, `Date`, and the integer types whose every value is a
/// plist integer (`Int`, `Int8` to `Int64`, `UInt8` to `UInt32`). A type is stored by its raw value or not by its
/// type alone, never by the value, so a read knows which form to expect.
enum DefaultsRawValue {
    /// Whether values of `type` are stored by their raw value.
    static func isStoredByRawValue(_ type: Any.Type) -> Bool {
        guard let raw = type as? any RawRepresentable.Type else { return false }
        return hasScalarRawValue(raw)
    }

    /// The stored form of `value`: its raw value as a property-list value, or `nil` when its type is not stored by
    /// raw value.
    static func encode(_ value: Any) -> PropertyListValue? {
        guard let raw = value as? any RawRepresentable else { return nil }
        return encodeOpened(raw)
    }

    /// How a stored value reads as `type`, when `type` is stored by raw value: `.value` (a raw value of the type),
    /// `.notRawValue` (the raw type, but no value of `type` has it), `.otherType` (not the raw type), or `nil` when
    /// `type` is not stored by raw value.
    static func decode(_ type: Any.Type, from stored: PropertyListValue) -> Decoded? {
        guard let raw = type as? any RawRepresentable.Type else { return nil }
        return decodeOpened(raw, from: stored)
    }

    enum Decoded {
        case value(Any)
        case notRawValue
        case otherType
    }

    /// Whether `type`'s raw value is `Data` (whose old JSON form is `<data>` too).
    static func isDataBacked(_ type: Any.Type) -> Bool {
        guard let raw = type as? any RawRepresentable.Type else { return false }
        return rawType(of: raw) == Data.self
    }

    private static func rawType<Value: RawRepresentable>(of type: Value.Type) -> Any.Type { Value.RawValue.self }

    private static func hasScalarRawValue<Value: RawRepresentable>(_ type: Value.Type) -> Bool {
        let raw = ObjectIdentifier(Value.RawValue.self)
        return scalarTypes.contains(raw) || integerTypes.contains(raw)
    }

    private static func encodeOpened<Value: RawRepresentable>(_ value: Value) -> PropertyListValue? {
        guard hasScalarRawValue(Value.self) else { return nil }
        if let native = value.rawValue as? any PropertyListConvertible { return native.propertyListValue }
        guard let integer = value.rawValue as? any BinaryInteger, let number = Int64(exactly: integer) else {
            return nil
        }
        return .integer(number)
    }

    private static func decodeOpened<Value: RawRepresentable>(
        _ type: Value.Type, from stored: PropertyListValue
    ) -> Decoded? {
        guard hasScalarRawValue(Value.self) else { return nil }
        let rawValue: Value.RawValue?
        if let native = Value.RawValue.self as? any PropertyListConvertible.Type {
            rawValue = native.init(propertyListValue: stored) as? Value.RawValue
        } else if let integer = Value.RawValue.self as? any BinaryInteger.Type,
            let number = Int64(propertyListValue: stored)
        {
            rawValue = exactly(number, as: integer) as? Value.RawValue
            if rawValue == nil, case .integer = stored { return .notRawValue }  // out of the raw type's range
        } else {
            rawValue = nil
        }
        guard let rawValue else { return .otherType }
        guard let value = Value(rawValue: rawValue) else { return .notRawValue }
        return .value(value)
    }

    private static func exactly<Integer: BinaryInteger>(_ number: Int64, as type: Integer.Type) -> Integer? {
        Integer(exactly: number)
    }

    /// The non-integer raw types, and the integer types that are ``PropertyListConvertible`` themselves.
    private static let scalarTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(String.self), ObjectIdentifier(Bool.self), ObjectIdentifier(Double.self),
        ObjectIdentifier(Float.self), ObjectIdentifier(Data.self), ObjectIdentifier(Date.self),
        ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self),
    ]

    /// The other integer types whose every value is a plist integer (a signed 64-bit one).
    private static let integerTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int8.self), ObjectIdentifier(Int16.self), ObjectIdentifier(UInt8.self),
        ObjectIdentifier(UInt16.self), ObjectIdentifier(UInt32.self),
    ]
}
