import StrataRecords

/// Compiles queries to PostgreSQL, collecting the bound parameters. Field paths have passed the store's checks
/// (names of letters, digits and `_`), so they can be written into the SQL; values never are.
struct PostgresSQL {
    var parameters: [PostgresParameter] = []
    /// Whether the database's collation is bytewise, so that a prefix can also be a range an index serves.
    let bytewiseText: Bool

    init(bytewiseText: Bool) { self.bytewiseText = bytewiseText }

    /// The field as `jsonb`, with JSON `null` read as SQL NULL (as SQLite's `json_extract` does): exactly the
    /// expression indexes are built on.
    static func value(_ field: Field) -> String {
        "NULLIF(body" + field.components.map { "->'\($0)'" }.joined() + ", 'null'::jsonb)"
    }

    /// The field as a `text[]` path literal for `#>`, `#-` and `jsonb_set`.
    static func path(_ field: Field) -> String { "'{" + field.components.joined(separator: ",") + "}'" }

    private mutating func bind(_ parameter: PostgresParameter) -> String {
        parameters.append(parameter)
        return "$\(parameters.count)"
    }

    private mutating func bindJSON(_ value: QueryValue) -> String {
        bind(.text(Self.json(value))) + "::jsonb"
    }

    static func json(_ value: QueryValue) -> String {
        switch value {
        case .integer(let number): String(number)
        case .real(let number): number.isFinite ? JSONValue.number(number).description : "null"
        case .text(let text): JSONValue.string(text).description
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    mutating func select(_ query: Query, collection: String, columns: String = "id, body") -> String {
        var sql = "SELECT \(columns) FROM c_\(collection) WHERE " + condition(query.predicate)
        // SQLite's order: NULLs first when ascending, last when descending.
        let order =
            query.sort.map { "\(Self.value($0.field)) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
            + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(bind(.text(String(Swift.max(0, limit)))))::bigint" }
        if query.offset > 0 { sql += " OFFSET \(bind(.text(String(query.offset))))::bigint" }
        return sql
    }

    mutating func condition(_ predicate: StrataRecords.Predicate) -> String {
        switch predicate {
        case .compare(let field, let comparison, .null):
            let value = Self.value(field)
            return comparison == .equal
                ? "\(value) IS NULL" : comparison == .notEqual ? "\(value) IS NOT NULL" : "FALSE"
        case .compare(let field, let comparison, let compared):
            let value = Self.value(field)
            let parameter = bindJSON(compared)
            switch comparison {
            case .equal: return "\(value) = \(parameter)"
            case .notEqual: return "\(value) <> \(parameter)"
            default:
                // jsonb orders across types (any boolean > any number); match only the compared value's type.
                return
                    "(\(value) \(comparison.rawValue) \(parameter) AND jsonb_typeof(\(value)) = jsonb_typeof(\(parameter)))"
            }
        case .oneOf(let field, let values):
            guard !values.isEmpty else { return "FALSE" }
            return "\(Self.value(field)) IN (\(values.map { bindJSON($0) }.joined(separator: ", ")))"
        case .prefix(let field, let prefix):
            let value = Self.value(field)
            let text = bind(.text(prefix))
            var sql = "(jsonb_typeof(\(value)) = 'string' AND starts_with(\(value) #>> '{}', \(text)::text)"
            if bytewiseText {
                // With bytewise text, the prefix is also a range of the index; U+10FFFF sorts last.
                sql +=
                    " AND \(value) >= \(bindJSON(.text(prefix))) AND \(value) < \(bindJSON(.text(prefix + "\u{10FFFF}")))"
            }
            return sql + ")"
        case .contains(let field, let text):
            let value = Self.value(field)
            let parameter = bind(.text(text))
            return
                "(CASE jsonb_typeof(\(value)) WHEN 'array' THEN \(value) @> jsonb_build_array(\(parameter)::text) ELSE strpos(\(value) #>> '{}', \(parameter)::text) > 0 END)"
        case .isNull(let field):
            return "\(Self.value(field)) IS NULL"
        case .and(let parts):
            return parts.isEmpty ? "TRUE" : "(" + parts.map { condition($0) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return parts.isEmpty ? "FALSE" : "(" + parts.map { condition($0) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (\(condition(inner)))"
        case .all:
            return "TRUE"
        }
    }

    /// A `text[]` literal: every element quoted, with `"` and `\` escaped.
    static func arrayLiteral(_ values: [String]) -> String {
        "{"
            + values.map { value in
                var quoted = "\""
                for scalar in value.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
                    quoted.unicodeScalars.append(scalar)
                }
                return quoted + "\""
            }.joined(separator: ",") + "}"
    }

    /// A `jsonb` value as PostgreSQL prints it, read back as a query value.
    static func queryValue(fromJSON bytes: UnsafeRawBufferPointer) throws -> QueryValue? {
        switch try JSONValue.parse(bytes) {
        case .null: nil
        case .bool(let flag): .bool(flag)
        case .integer(let number): .integer(number)
        case .number(let number): .real(number)
        case .string(let text): .text(text)
        case let other: .text(other.description)
        }
    }
}
