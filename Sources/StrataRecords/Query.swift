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

    /// SQLite's expression reading the field: exactly what expression indexes are built on.
    var sqliteSQL: String { "json_extract(body, '$.\(path)')" }

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

    /// How SQLite sees it: JSON `true`/`false` come out of `json_extract` as the integers 1 and 0, so booleans
    /// are bound as integers.
    var sqlValue: SQLiteValue {
        switch self {
        case .integer(let number): .integer(number)
        case .real(let number): .real(number)
        case .text(let text): .text(text)
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .null: .null
        }
    }
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
    var fields: [Field] {
        switch self {
        case .compare(let field, _, _), .oneOf(let field, _), .prefix(let field, _), .contains(let field, _),
            .isNull(let field):
            [field]
        case .and(let parts), .or(let parts): parts.flatMap(\.fields)
        case .not(let inner): inner.fields
        case .all: []
        }
    }

    /// Compiles to a SQLite WHERE clause with `?` parameters, appending the bound values.
    func sqliteSQL(_ parameters: inout [SQLiteValue]) -> String {
        switch self {
        case .compare(let field, let comparison, .null):
            return comparison == .equal
                ? "\(field.sqliteSQL) IS NULL" : comparison == .notEqual ? "\(field.sqliteSQL) IS NOT NULL" : "0"
        case .compare(let field, let comparison, let value):
            parameters.append(value.sqlValue)
            return "\(field.sqliteSQL) \(comparison.rawValue) ?"
        case .oneOf(let field, let values):
            guard !values.isEmpty else { return "0" }
            parameters += values.map(\.sqlValue)
            return "\(field.sqliteSQL) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))"
        case .prefix(let field, let prefix):
            // A range, so an index on the field serves it; U+10FFFF is the largest code point.
            parameters.append(.text(prefix))
            parameters.append(.text(prefix + "\u{10FFFF}"))
            return "(\(field.sqliteSQL) >= ? AND \(field.sqliteSQL) < ?)"
        case .contains(let field, let text):
            parameters.append(.text(text))
            parameters.append(.text(text))
            return
                "(CASE json_type(body, '$.\(field.path)') WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(body, '$.\(field.path)') WHERE value = ?) ELSE instr(\(field.sqliteSQL), ?) > 0 END)"
        case .isNull(let field):
            return "\(field.sqliteSQL) IS NULL"
        case .and(let parts):
            return parts.isEmpty ? "1" : "(" + parts.map { $0.sqliteSQL(&parameters) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return parts.isEmpty ? "0" : "(" + parts.map { $0.sqliteSQL(&parameters) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (\(inner.sqliteSQL(&parameters)))"
        case .all:
            return "1"
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
