import StrataCore
import StrataRecords

// Queries compiled to SQLite's SQL: fields read with `json_extract`, values bound as `?` parameters.

extension Field {
    /// SQLite's expression reading the field: exactly what expression indexes are built on.
    var sqliteSQL: String { "json_extract(body, '$.\(path)')" }
}

extension QueryValue {
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

extension Predicate {
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
