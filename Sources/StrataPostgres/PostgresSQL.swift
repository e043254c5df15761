import StrataPostgresClient
import StrataRecords

/// Compiles queries to PostgreSQL, collecting the bound parameters. Field paths have passed the store's checks
/// (names of letters, digits and `_`), so they can be written into the SQL; values never are.
struct PostgresSQL {
    var parameters: [PostgresParameter] = []
    /// Whether the database's collation is bytewise, so that a prefix can also be a range an index serves.
    let bytewiseText: Bool
    /// The collection's key columns: a field that has one is compared, sorted and ranged on its key.
    let keys: PostgresKeyColumns

    init(bytewiseText: Bool, keys: PostgresKeyColumns = .none) {
        self.bytewiseText = bytewiseText
        self.keys = keys
    }

    /// The field as `jsonb`, with JSON `null` read as SQL NULL (as SQLite's `json_extract` does): exactly the
    /// expression indexes are built on where fields have no key column.
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

    private mutating func bindKey(_ key: [UInt8]) -> String {
        bind(.text(String(decoding: PostgresIndexKey.hex(key), as: UTF8.self))) + "::bytea"
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

    /// What a sort or `min`/`max` orders by: the key column, or the `jsonb` value.
    func orderValue(_ field: Field) -> String { keys.column(of: field) ?? Self.value(field) }

    /// The condition that a field is missing or JSON `null`.
    func isMissing(_ field: Field) -> String {
        keys.column(of: field).map { "\($0) = ''" } ?? "\(Self.value(field)) IS NULL"
    }

    mutating func select(_ query: Query, collection: String, columns: String = "id, body") -> String {
        var sql = "SELECT \(columns) FROM c_\(collection) WHERE " + condition(query.predicate)
        // SQLite's order: NULLs first when ascending, last when descending (the empty key sorts first).
        let order =
            query.sort.map { sort in
                keys.column(of: sort.field).map { "\($0) \(sort.ascending ? "ASC" : "DESC")" }
                    ?? "\(Self.value(sort.field)) \(sort.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
            }
            + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(bind(.text(String(Swift.max(0, limit)))))::bigint" }
        if query.offset > 0 { sql += " OFFSET \(bind(.text(String(query.offset))))::bigint" }
        return sql
    }

    /// The predicate as SQL that is true exactly where it holds, or, when `negated`, exactly where its negation
    /// holds under SQL's three-valued logic on the `jsonb` values: a comparison with a missing field is unknown,
    /// so neither it nor its negation holds. `NOT` is pushed down to the comparisons, so that a key column (where
    /// a missing field is the empty key, not SQL NULL) keeps that meaning.
    mutating func condition(_ predicate: StrataRecords.Predicate, negated: Bool = false) -> String {
        switch predicate {
        case .and(let parts), .or(let parts):
            // A negated AND is the OR of the negations, and the other way round.
            let isAnd = { if case .and = predicate { return true } else { return false } }() != negated
            guard !parts.isEmpty else { return isAnd ? "TRUE" : "FALSE" }
            return "("
                + parts.map { condition($0, negated: negated) }.joined(separator: isAnd ? " AND " : " OR ") + ")"
        case .not(let inner):
            return condition(inner, negated: !negated)
        case .all:
            return negated ? "FALSE" : "TRUE"
        case .isNull(let field), .compare(let field, .equal, .null):
            // Never unknown.
            return negated ? "NOT (\(isMissing(field)))" : isMissing(field)
        case .compare(let field, .notEqual, .null):
            return negated ? isMissing(field) : "NOT (\(isMissing(field)))"
        case .compare(_, _, .null):
            return negated ? "TRUE" : "FALSE"
        default:
            guard let (column, sql) = keyComparison(predicate) else {
                // On the `jsonb` value: unknown where the field is missing, as is its negation.
                let sql = valueComparison(predicate)
                return negated ? "NOT \(sql)" : sql
            }
            // Every key comparison is false for the empty key: its negation must be too.
            return negated ? "(\(column) <> '' AND NOT \(sql))" : sql
        }
    }

    /// A comparison on the field's key column, if it has one and the comparison can use it: the column, and the
    /// SQL, false for the empty key (it repeats `<> ''` so that a partial unique index can serve it).
    private mutating func keyComparison(_ predicate: StrataRecords.Predicate) -> (String, String)? {
        switch predicate {
        case .compare(let field, let comparison, let compared):
            guard let k = keys.column(of: field) else { return nil }
            let key = bindKey(PostgresIndexKey.key(compared))
            switch comparison {
            case .equal: return (k, "(\(k) = \(key) AND \(k) <> '')")
            case .notEqual: return (k, "(\(k) <> \(key) AND \(k) <> '')")
            case .less, .lessOrEqual:
                // Only values of the compared value's JSON type: from its type's first key.
                let low = bindKey(PostgresIndexKey.typePrefix(compared))
                return (k, "(\(k) \(comparison.rawValue) \(key) AND \(k) >= \(low) AND \(k) <> '')")
            case .greater, .greaterOrEqual:
                var next = PostgresIndexKey.typePrefix(compared)
                next[1] += 1
                let high = bindKey(next)
                return (k, "(\(k) \(comparison.rawValue) \(key) AND \(k) < \(high) AND \(k) <> '')")
            }
        case .oneOf(let field, let values):
            guard let k = keys.column(of: field), !values.isEmpty else { return nil }
            let list = values.map { bindKey(PostgresIndexKey.key($0)) }.joined(separator: ", ")
            return (k, "(\(k) IN (\(list)) AND \(k) <> '')")
        case .prefix(let field, let prefix):
            // Exact on a key column whatever the collation: strings compare bytewise in keys.
            guard let k = keys.column(of: field) else { return nil }
            let low = PostgresIndexKey.stringPrefix(prefix)
            let (lower, upper) = (bindKey(low), bindKey(low + [0xFF]))
            return (k, "(\(k) >= \(lower) AND \(k) < \(upper) AND \(k) <> '')")
        default:
            return nil
        }
    }

    /// A comparison on the field's `jsonb` value (no key column, or `contains`).
    private mutating func valueComparison(_ predicate: StrataRecords.Predicate) -> String {
        switch predicate {
        case .compare(let field, let comparison, let compared):
            let value = Self.value(field)
            let parameter = bindJSON(compared)
            switch comparison {
            case .equal: return "(\(value) = \(parameter))"
            case .notEqual: return "(\(value) <> \(parameter))"
            default:
                // jsonb orders across types (any boolean > any number); match only the compared value's type.
                return
                    "(\(value) \(comparison.rawValue) \(parameter) AND jsonb_typeof(\(value)) = jsonb_typeof(\(parameter)))"
            }
        case .oneOf(let field, let values):
            guard !values.isEmpty else { return "FALSE" }
            return "(\(Self.value(field)) IN (\(values.map { bindJSON($0) }.joined(separator: ", "))))"
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
        default:
            return "FALSE"
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
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(bytes)
        } catch {
            // A `numeric` beyond `Double`'s range (`1E+400`, `1e-400`), which `JSONValue` refuses: as a real, the
            // infinity or zero it rounds to, as SQLite's engine reads such a number.
            guard let number = Double(String(decoding: bytes, as: UTF8.self)) else { throw error }
            return .real(number)
        }
        return switch parsed {
        case .null: nil
        case .bool(let flag): .bool(flag)
        case .integer(let number): .integer(number)
        case .number(let number): .real(number)
        case .string(let text): .text(text)
        case let other: .text(other.description)
        }
    }
}
