import Foundation
import Strata

/// One `--where` condition of `strata records query`: `field OP value`.
///
/// OP is `=` (or `==`), `!=`, `<`, `<=`, `>`, `>=`, `^=` (prefix) or `~=` (contains); the field is everything
/// before it and the value everything after. A value reads as `null`, `true`, `false`, a whole number or a number
/// when it is one, a date when it is an ISO 8601 date and time (`2026-01-01T00:00:00Z`, with an offset or
/// fractional seconds too: seconds since 2001, as records store a `Date`), else as text; in double quotes it is always text, so `name=""` is the empty text and
/// `sign="=x"` text that starts with an operator character. A clause without a field, an operator it knows, or a
/// value is a usage error that quotes it.
struct WhereClause {
    static let operators = ["=", "==", "!=", "<", "<=", ">", ">=", "^=", "~="]
    static let operatorCharacters: Set<Character> = ["=", "!", "<", ">", "^", "~"]

    var field: String
    var op: String
    /// The value as written, without its quotes.
    var text: String
    var isQuoted: Bool

    /// Reads a clause.
    /// - Throws: ``UsageError`` naming the clause and what is missing.
    init(_ clause: String) throws {
        func refuse(_ why: String) -> UsageError {
            UsageError("cannot read the condition '\(clause)': \(why); write it like age>=18, name==Ada or name^=A")
        }
        guard let start = clause.firstIndex(where: { Self.operatorCharacters.contains($0) }) else {
            throw refuse("it has no operator")
        }
        let end = clause[start...].firstIndex { !Self.operatorCharacters.contains($0) } ?? clause.endIndex
        field = String(clause[..<start])
        op = String(clause[start..<end])
        var value = String(clause[end...])
        guard !field.isEmpty else { throw refuse("it has no field before '\(op)'") }
        guard Self.operators.contains(op) else {
            throw refuse("'\(op)' is not an operator (\(Self.operators.joined(separator: " ")))")
        }
        guard !value.isEmpty else { throw refuse("it has no value after '\(op)' (\"\" is the empty text)") }
        isQuoted = value.hasPrefix("\"")
        if isQuoted {
            guard value.count >= 2, value.hasSuffix("\"") else { throw refuse("its quoted value has no closing quote") }
            value = String(value.dropFirst().dropLast())
        }
        text = value
    }

    /// The value to compare with.
    var value: QueryValue {
        if isQuoted { return .text(text) }
        switch text {
        case "null": return .null
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            return Int64(text).map { .integer($0) } ?? Double(text).map { .real($0) } ?? Self.date(text)?.queryValue
                ?? .text(text)
        }
    }

    /// An ISO 8601 date and time (`2026-01-01T00:00:00Z`, `2026-01-01T09:30:00.250+02:00`), or `nil`.
    static func date(_ text: String) -> Date? {
        guard text.count >= 20, text.contains("T") else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return plain.date(from: text) ?? fractional.date(from: text)
    }

    /// The condition as a query predicate.
    var predicate: StrataRecords.Predicate {
        let field = Field(self.field)
        switch op {
        case "=", "==": return field == value
        case "!=": return field != value
        case "<": return field < value
        case "<=": return field <= value
        case ">": return field > value
        case ">=": return field >= value
        case "^=": return field.hasPrefix(text)
        default: return field.contains(text)
        }
    }
}
