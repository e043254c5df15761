public import Foundation

/// A Swift value a query can compare a field with, as the record coder stores it: `Field("feedID") == feed`,
/// `Field("published") >= date`.
///
/// `String`, the integer types, `Double`, `Float`, `Bool`, `Date` (seconds since 2001, as records store it),
/// `UUID` (its `uuidString`), `URL` (its absolute string), optionals of these (`nil` is `null`) and
/// ``QueryValue`` itself conform. An enum with a raw value of one of these types is compared by its raw value
/// without conforming (``Field``'s operators take any `RawRepresentable`).
public protocol QueryValueConvertible {
    /// The value as the record coder writes it into a record's JSON.
    var queryValue: QueryValue { get }
}

extension QueryValue: QueryValueConvertible {
    public var queryValue: QueryValue { self }
}

extension String: QueryValueConvertible {
    public var queryValue: QueryValue { .text(self) }
}

extension Substring: QueryValueConvertible {
    public var queryValue: QueryValue { .text(String(self)) }
}

extension Bool: QueryValueConvertible {
    public var queryValue: QueryValue { .bool(self) }
}

extension Double: QueryValueConvertible {
    public var queryValue: QueryValue { .real(self) }
}

extension Float: QueryValueConvertible {
    public var queryValue: QueryValue { .real(Double(self)) }
}

// `Int` and `Int64` have theirs as record identifiers.
extension Int: QueryValueConvertible {}

extension Int8: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int16: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int32: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int64: QueryValueConvertible {}

extension UInt8: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension UInt16: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension UInt32: QueryValueConvertible {
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension UInt: QueryValueConvertible {
    /// An integer; one above `Int64.max` as the real it is written as.
    public var queryValue: QueryValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }
}

extension UInt64: QueryValueConvertible {
    /// An integer; one above `Int64.max` as the real it is written as.
    public var queryValue: QueryValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }
}

extension Date: QueryValueConvertible {
    /// Seconds since 1 January 2001 (`timeIntervalSinceReferenceDate`): how the record coder stores a `Date`.
    public var queryValue: QueryValue { .real(timeIntervalSinceReferenceDate) }
}

extension UUID: QueryValueConvertible {
    /// The upper-case `uuidString`, as `UUID` encodes itself.
    public var queryValue: QueryValue { .text(uuidString) }
}

extension URL: QueryValueConvertible {
    /// The absolute string, as the record coder stores a `URL`.
    public var queryValue: QueryValue { .text(absoluteString) }
}

extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    /// The wrapped value's, or `null`.
    public var queryValue: QueryValue { map(\.queryValue) ?? .null }
}
