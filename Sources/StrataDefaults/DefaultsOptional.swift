import StrataCore

/// An `Optional` of a storable type, as ``DefaultsCoding`` sees it: `.some` is stored as the wrapped value itself
/// (a `String?` as a `.string`, like a `String`), `.none` is no value at all (setting it removes the key).
///
/// Checked on the metatype (`Value.self as? any DefaultsOptional.Type`), never with `value as? ...`: a dynamic cast
/// of an `Optional` unwraps it, which once stored a `String?` natively but read it back as JSON data.
protocol DefaultsOptional {
    /// The wrapped value's stored form, or `nil` for `.none` (and for a `.some` wrapping `.none`).
    static func encodeWrapped(_ value: Any, key: String) throws -> PropertyListValue?
    /// `.some` of the wrapped type decoded from `stored`, as an `Any` holding `Self`.
    static func decodeWrapped(from stored: PropertyListValue, key: String) throws(StorageError) -> Any
    /// `.none`, as an `Any` holding `Self`.
    static var noneValue: Any { get }
    /// The wrapped type.
    static var wrappedType: Any.Type { get }
}

extension Optional: DefaultsOptional where Wrapped: Codable {
    static func encodeWrapped(_ value: Any, key: String) throws -> PropertyListValue? {
        guard case .some(.some(let wrapped)) = value as? Wrapped? else { return nil }
        return try DefaultsCoding.encode(wrapped, key: key)
    }

    static func decodeWrapped(from stored: PropertyListValue, key: String) throws(StorageError) -> Any {
        Wrapped?.some(try DefaultsCoding.decode(Wrapped.self, from: stored, key: key)) as Any
    }

    static var noneValue: Any { Wrapped?.none as Any }

    static var wrappedType: Any.Type { Wrapped.self }
}
