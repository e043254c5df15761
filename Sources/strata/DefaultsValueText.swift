import Foundation
import Strata

/// How `strata defaults set` reads a value from the command line, and how `defaults get` and `list` show one.
///
/// With `--type`, the text is read as that type. Without it, a key that has a value keeps that value's type: an
/// integer stays an integer, a real a real, a bool a bool (`true`/`false`/`yes`/`no`/`1`/`0`), a date a date
/// (ISO 8601), a dictionary or an array is given as JSON, and data that holds JSON (a `Codable` preference) is
/// given as JSON and stored as data again. A text that does not read as the type is a usage error naming both. A
/// new key takes the type its text reads as, when the value reads back as that very text (``inferred(_:)``: `42` an
/// integer, `1.5` a real, `true` a bool, an ISO 8601 date-time a date; `007`, `1.10`, `yes` a string); a key holding
/// other data stores a string.
enum DefaultsValueText {
    /// The names `--type` accepts, and the property-list type each reads as.
    static let types: [(name: String, typeName: String)] = [
        ("string", "string"), ("int", "integer"), ("integer", "integer"), ("double", "real"), ("real", "real"),
        ("bool", "bool"), ("date", "date"),
    ]

    /// The property-list type that `--type NAME` names.
    /// - Throws: ``UsageError`` for a name not in ``types``.
    @Sendable static func typeName(named name: String) throws -> String {
        guard let known = types.first(where: { $0.name == name }) else {
            throw UsageError("unknown type '\(name)'; use one of \(types.map(\.name).joined(separator: ", "))")
        }
        return known.typeName
    }

    /// The value to store for `text`.
    /// - Parameters:
    ///   - typeName: The property-list type `--type` names (``typeName(named:)``), if given.
    ///   - existing: The key's value now, if it has one.
    /// - Throws: ``UsageError`` for a text that is not one of the type.
    static func value(_ text: String, key: String, typeName: String?, existing: PropertyListValue?) throws
        -> PropertyListValue
    {
        if let typeName { return try read(text, as: typeName, key: key, fix: "") }
        guard let existing else { return inferred(text) }
        let fix = "; or pass --type to store another type"
        switch existing {
        case .data(let data):
            guard JSONOutput.jsonInData(data) != nil else { return .string(text) }
            guard JSONOutput.jsonInData(Data(text.utf8)) != nil else {
                throw UsageError("'\(text)' is not JSON, and '\(key)' holds JSON data\(fix)")
            }
            return .data(Data(text.utf8))
        case .array, .dictionary:
            let parsed: PropertyListValue
            do {
                parsed = try JSONOutput.propertyList(try JSONValue.parse(text))
            } catch let error as UsageError {
                throw UsageError("'\(text)' cannot be stored in '\(key)': \(error)")
            } catch {
                throw UsageError("'\(text)' is not JSON, and '\(key)' holds \(article(existing.typeName))\(fix)")
            }
            guard parsed.typeName == existing.typeName else {
                throw UsageError(
                    "'\(text)' is \(article(parsed.typeName)), and '\(key)' holds \(article(existing.typeName))\(fix)")
            }
            return parsed
        default:
            return try read(text, as: existing.typeName, key: key, fix: " holds \(article(existing.typeName))\(fix)")
        }
    }

    /// The value a new key (one with no value to keep the type of) stores for `text`: an integer or a real when the
    /// text is a plain decimal number that prints back as itself (`42`, `-3`, `1.5`; not `007`, `1.10`, `1e3`,
    /// `nan`, which would not come back as typed), a bool for `true` or `false`, a date for an ISO 8601 date-time
    /// (`2026-01-01T00:00:00Z`), else the text as a string. Nothing typed is lost: `--type string` keeps any text.
    static func inferred(_ text: String) -> PropertyListValue {
        if text == "true" || text == "false" { return .bool(text == "true") }
        let isDecimal =
            text.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?/) != nil
        if isDecimal {
            for typeName in ["integer", "real"] {
                if let value = try? read(text, as: typeName, key: "", fix: ""), (try? show(value)) == text {
                    return value
                }
            }
        }
        if text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T.+/) != nil,
            let date = try? read(text, as: "date", key: "", fix: "")
        {
            return date
        }
        return .string(text)
    }

    /// Reads `text` as the scalar type `typeName`.
    static func read(_ text: String, as typeName: String, key: String, fix: String) throws -> PropertyListValue {
        if typeName == "bool" {
            let flags = ["true": true, "false": false, "yes": true, "no": false, "1": true, "0": false]
            guard let flag = flags[text.lowercased()] else {
                throw UsageError("'\(text)' is not a bool (true or false)\(fix.isEmpty ? "" : ", and '\(key)'\(fix)")")
            }
            return .bool(flag)
        }
        do {
            return try PropertyListValue(
                byteForm: Data(text.utf8), contentType: PropertyListValue.byteFormContentTypePrefix + typeName)
        } catch {
            throw UsageError("'\(text)' is not \(article(typeName))\(fix.isEmpty ? "" : ", and '\(key)'\(fix)")")
        }
    }

    /// A value as `get` and `list` print it: a scalar as its byte form (a string as itself, a date in ISO
    /// 8601), a structured value (an array, a dictionary, data that holds JSON) as compact JSON, other data as
    /// its size.
    static func show(_ value: PropertyListValue) throws -> String {
        switch value {
        case .array, .dictionary: return JSONOutput.json(value).description
        case .data(let data): return JSONOutput.jsonInData(data)?.description ?? "<\(data.count) bytes>"
        default: return String(decoding: try value.byteForm(), as: UTF8.self)
        }
    }

    /// The note `set` writes to standard error: `stored KEY = VALUE (TYPE)`.
    static func note(key: String, value: PropertyListValue) throws -> String {
        "stored \(key) = \(try show(value)) (\(value.typeName))"
    }

    static func article(_ typeName: String) -> String {
        (["integer", "array"].contains(typeName) ? "an " : "a ") + typeName
    }
}
