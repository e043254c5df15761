/// A field of a record's JSON, by name or dotted path (`age`, `address.city`).
///
/// Paths are letters, digits and `_` separated by dots: they are written into SQL as JSON paths after this
/// check, and every value is bound as a parameter, so no query can inject SQL.
public struct Field: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The dotted path.
    public let path: String

    /// A field by dotted path.
    public init(_ path: String) { self.path = path }
    public init(stringLiteral value: String) { self.path = value }

    public var description: String { path }

    /// Whether the path is safe to write into SQL.
    var isValid: Bool {
        !path.isEmpty && path.utf8.count <= 200
            && path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95
                    }
            }
    }

    /// The path's parts: `address.city` is `["address", "city"]`.
    public var components: [String] { path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    public static func == (field: Field, value: QueryValue) -> Predicate { .compare(field, .equal, value) }
    public static func != (field: Field, value: QueryValue) -> Predicate { .compare(field, .notEqual, value) }
    public static func < (field: Field, value: QueryValue) -> Predicate { .compare(field, .less, value) }
    public static func <= (field: Field, value: QueryValue) -> Predicate { .compare(field, .lessOrEqual, value) }
    public static func > (field: Field, value: QueryValue) -> Predicate { .compare(field, .greater, value) }
    public static func >= (field: Field, value: QueryValue) -> Predicate { .compare(field, .greaterOrEqual, value) }

    /// The field is one of `values`.
    public func isIn(_ values: [QueryValue]) -> Predicate { .oneOf(self, values) }
    /// The field is text starting with `prefix` (case-sensitive).
    public func hasPrefix(_ prefix: String) -> Predicate { .prefix(self, prefix) }
    /// The field is text containing `text`, or an array containing the value `text`.
    public func contains(_ text: String) -> Predicate { .contains(self, text) }
    /// The field is absent or null.
    public var isNull: Predicate { .isNull(self) }
    /// The field is present and not null.
    public var isNotNull: Predicate { .not(.isNull(self)) }
}

/// A value compared in a query. Literals work directly: `Field("age") >= 18`.
public enum QueryValue: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)
    case null

    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// A condition on records, built from ``Field`` operators and combined with `&&`, `||` and `!`.
///
/// ```swift
/// let query: Predicate = Field("age") >= 18 && (Field("name").hasPrefix("A") || Field("tags").contains("vip"))
/// ```
public indirect enum Predicate: Sendable, Hashable {
    public enum Comparison: String, Sendable, Hashable {
        case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    case compare(Field, Comparison, QueryValue)
    case oneOf(Field, [QueryValue])
    case prefix(Field, String)
    case contains(Field, String)
    case isNull(Field)
    case and([Predicate])
    case or([Predicate])
    case not(Predicate)
    /// Every record.
    case all

    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate { .and([lhs, rhs]) }
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate { .or([lhs, rhs]) }
    public static prefix func ! (predicate: Predicate) -> Predicate { .not(predicate) }

    /// The fields the predicate reads.
    package var fields: [Field] {
        switch self {
        case .compare(let field, _, _), .oneOf(let field, _), .prefix(let field, _), .contains(let field, _),
            .isNull(let field):
            [field]
        case .and(let parts), .or(let parts): parts.flatMap(\.fields)
        case .not(let inner): inner.fields
        case .all: []
        }
    }
}

/// One key of a sort order.
public struct SortKey: Sendable, Hashable {
    public var field: Field
    public var ascending: Bool

    public static func ascending(_ field: Field) -> SortKey { SortKey(field: field, ascending: true) }
    public static func descending(_ field: Field) -> SortKey { SortKey(field: field, ascending: false) }
}

/// What to fetch: a predicate, a sort order, and a page.
public struct Query: Sendable, Hashable {
    public var predicate: Predicate
    public var sort: [SortKey]
    public var limit: Int?
    public var offset: Int

    /// Creates a query. The defaults fetch every record in id order.
    public init(_ predicate: Predicate = .all, sort: [SortKey] = [], limit: Int? = nil, offset: Int = 0) {
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}
