// Comparisons with Swift values: `Field("feedID") == feed`, `Field("published") >= date`, `Field("kind") == .video`.
// Each value becomes the `QueryValue` the record coder would have written for it.

extension Field {
    /// The field equals the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func == (field: Field, value: some QueryValueConvertible) -> Predicate { field == value.queryValue }
    /// The field differs from the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func != (field: Field, value: some QueryValueConvertible) -> Predicate { field != value.queryValue }
    /// The field is less than the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func < (field: Field, value: some QueryValueConvertible) -> Predicate { field < value.queryValue }
    /// The field is at most the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func <= (field: Field, value: some QueryValueConvertible) -> Predicate { field <= value.queryValue }
    /// The field is greater than the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func > (field: Field, value: some QueryValueConvertible) -> Predicate { field > value.queryValue }
    /// The field is at least the value, as the record coder stores it (a `Date` as seconds since 2001).
    public static func >= (field: Field, value: some QueryValueConvertible) -> Predicate { field >= value.queryValue }

    /// The field is one of `values`.
    public func isIn<Value: QueryValueConvertible>(_ values: some Sequence<Value>) -> Predicate {
        isIn(values.map(\.queryValue))
    }
}

// An enum with a raw value is stored as its raw value: compared by it, without a conformance of its own.
extension Field {
    /// The field equals the raw value.
    public static func == <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field == value.rawValue.queryValue }
    /// The field differs from the raw value.
    public static func != <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field != value.rawValue.queryValue }
    /// The field is less than the raw value.
    public static func < <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field < value.rawValue.queryValue }
    /// The field is at most the raw value.
    public static func <= <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field <= value.rawValue.queryValue }
    /// The field is greater than the raw value.
    public static func > <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field > value.rawValue.queryValue }
    /// The field is at least the raw value.
    public static func >= <Value: RawRepresentable>(field: Field, value: Value) -> Predicate
    where Value.RawValue: QueryValueConvertible { field >= value.rawValue.queryValue }

    /// The field equals the optional raw value, or is `null` when `value` is `nil`.
    public static func == <Value: RawRepresentable>(field: Field, value: Value?) -> Predicate
    where Value.RawValue: QueryValueConvertible { field == (value?.rawValue.queryValue ?? .null) }
    /// The field differs from the optional raw value, or is not `null` when `value` is `nil`.
    public static func != <Value: RawRepresentable>(field: Field, value: Value?) -> Predicate
    where Value.RawValue: QueryValueConvertible { field != (value?.rawValue.queryValue ?? .null) }

    /// The field is the raw value of one of `values`.
    public func isIn<Value: RawRepresentable>(_ values: some Sequence<Value>) -> Predicate
    where Value.RawValue: QueryValueConvertible { isIn(values.map(\.rawValue.queryValue)) }
}
