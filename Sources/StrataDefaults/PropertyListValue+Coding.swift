import StrataCore

// Typed values to and from property-list values, as a suite stores them: natively for the property-list types,
// as JSON data for any other `Codable`. The same rules for every API (``DefaultsKey``, the `Storage` facade).
extension PropertyListValue {
    /// A typed value as a suite stores it: a ``PropertyListConvertible`` natively (`String` as `.string`, `Int` as
    /// `.integer`, ...), any other `Codable` as its JSON encoding (keys sorted) in `.data`.
    /// - Throws: ``StorageError`` `.invalidArgument` when the value does not encode as JSON.
    public init<Value: Codable & Sendable>(encoding value: Value) throws {
        self = try DefaultsCoding.encode(value, key: "")
    }

    /// Reads a typed value back, with the rules of ``DefaultsStore/value(for:)``.
    /// - Throws: ``StorageError`` `.typeMismatch` naming the stored type when it is not `type` (no default is ever
    ///   returned in its place).
    public func decoded<Value: Codable & Sendable>(as type: Value.Type) throws -> Value {
        try DefaultsCoding.decode(type, from: self, key: "")
    }
}
