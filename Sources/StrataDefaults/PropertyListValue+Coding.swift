import StrataCore

// Typed values to and from property-list values, as a suite stores them: natively for the property-list types, by
// their raw value for raw-representable types with a property-list raw value, as JSON data for any other `Codable`. The same rules for every API (``DefaultsKey``, the `Storage` facade).
extension PropertyListValue {
    /// A typed value as a suite stores it: a ``PropertyListConvertible`` natively (`String` as `.string`, `Int` as
    /// `.integer`, ...), a raw-representable value whose raw value is one of these scalars by its raw value
    /// (`Theme.dark` as `.string("dark")`), any other `Codable` as its JSON encoding (keys sorted) in `.data`.
    /// An `Optional` is stored as its wrapped value.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the value does not encode as JSON, or is an
    ///   `Optional` that is `nil` (no value to store: remove the key instead).
    public init<Value: Codable & Sendable>(encoding value: Value) throws {
        guard let encoded = try DefaultsCoding.encode(value, key: "") else {
            throw StorageError(
                .invalidArgument, "a nil \(Value.self) is no value to store", tier: .defaults,
                recovery: "Remove the key instead of storing nil")
        }
        self = encoded
    }

    /// Reads a typed value back, with the rules of ``DefaultsStore/value(for:)``.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` naming the stored type when it is not `type` (no default
    ///   is ever returned in its place).
    public func decoded<Value: Codable & Sendable>(as type: Value.Type) throws -> Value {
        try DefaultsCoding.decode(type, from: self, key: "")
    }

    /// `value`'s stored form (see ``init(encoding:)``) and whether it is a property-list value of its own rather than
    /// JSON data; `nil` for an `Optional` that is `nil`, which is no value (the key is removed).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the value does not encode as JSON.
    package static func storedForm<Value: Codable & Sendable>(
        of value: Value
    ) throws -> (value: PropertyListValue, isNative: Bool)? {
        guard let encoded = try DefaultsCoding.encode(value, key: "") else { return nil }
        return (encoded, DefaultsCoding.storesNatively(Value.self))
    }
}
