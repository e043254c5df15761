import Foundation
import Strata

/// What `--json` prints, and how defaults values read as JSON: one compact JSON document per verb on standard
/// output (JSON Lines for `records query`), object members sorted, so that scripts can rely on the shape.
///
/// A property-list value becomes JSON this way: bool, integer, real and string as themselves; a date as its
/// ISO 8601 text; an array or a dictionary element by element; data that holds JSON (how a `Codable` preference is
/// stored) as that JSON, other data as `{"base64": "..."}`; a real that JSON cannot hold (infinity, NaN) as its
/// text.
enum JSONOutput {
    static let option = Flag("--json", "Print JSON for scripts (the shape is in Documentation/CLI.md).")

    /// Prints one JSON document on its own line.
    static func print(_ value: JSONValue) { Swift.print(value.description) }

    /// A property-list value as JSON.
    static func json(_ value: PropertyListValue) -> JSONValue {
        switch value {
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return number.isFinite ? .number(number) : .string(number.description)
        case .string(let text): return .string(text)
        case .date: return .string(String(decoding: (try? value.byteForm()) ?? Data(), as: UTF8.self))
        case .data(let data):
            if let parsed = jsonInData(data) { return parsed }
            return .object(["base64": .string(data.base64EncodedString())])
        case .array(let items): return .array(items.map(json))
        case .dictionary(let members): return .object(members.mapValues(json))
        }
    }

    /// The JSON document that `data` holds, or `nil` when it holds none.
    static func jsonInData(_ data: Data) -> JSONValue? {
        guard !data.isEmpty else { return nil }
        return try? data.withUnsafeBytes { try JSONValue.parse($0) }
    }

    /// A JSON document as a property-list value: objects as dictionaries, numbers as integers when whole and
    /// within 64 bits, else reals.
    /// - Throws: ``UsageError`` for `null`, which a property list cannot hold.
    static func propertyList(_ value: JSONValue) throws -> PropertyListValue {
        switch value {
        case .null: throw UsageError("a preference cannot hold null: remove the member, or the key")
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .unsignedInteger(let number): return .real(Double(number))
        case .number(let number): return .real(number)
        case .string(let text): return .string(text)
        case .array(let items): return .array(try items.map(propertyList))
        case .object(let members): return .dictionary(try members.mapValues(propertyList))
        }
    }
}

extension JSONOutput {
    /// Where a key lives: `{"key", "tier", "backend", "rule", "kind", "size", "modified", "contentType"}` (`kind` and
    /// `contentType` null when unknown, `modified` ISO 8601).
    static func location(_ location: StorageLocation) -> JSONValue {
        .object([
            "key": .string(location.key), "tier": .string(location.tier.rawValue), "backend": .string(location.backend),
            "rule": .string(location.ruleID), "kind": location.kind.map { .string($0.rawValue) } ?? .null,
            "size": .integer(Int64(location.size)),
            "modified": .string(ISO8601DateFormatter().string(from: location.modified)),
            "contentType": location.contentType.map { .string($0) } ?? .null,
        ])
    }

    /// A defaults entry: `{"key": K, "type": T, "value": V}`.
    static func entry(_ key: String, _ value: PropertyListValue) -> JSONValue {
        .object(["key": .string(key), "type": .string(value.typeName), "value": json(value)])
    }

    /// A secret item's attributes, never its value: `{"service", "account", "accessibility", "label", "size"}`.
    static func item(_ item: SecretItem) -> JSONValue {
        .object([
            "service": .string(item.service), "account": .string(item.account),
            "accessibility": .string(item.accessibility.rawValue), "label": .string(item.label),
            "size": .integer(Int64(item.valueSize)),
        ])
    }

    /// Bytes as a JSON string when they are UTF-8 text, else `{"base64": ...}`.
    static func bytes(_ data: Data) -> JSONValue {
        String(validating: data, as: UTF8.self).map { .string($0) }
            ?? .object(["base64": .string(data.base64EncodedString())])
    }

    /// A stored file: `{"key", "size", "contentType", "checksum" (CRC-32 as 8 hex digits, or null), "modified"}`.
    static func file(_ meta: FileMetadata) -> JSONValue {
        .object([
            "key": .string(meta.key), "size": .integer(Int64(meta.size)), "contentType": .string(meta.contentType),
            "checksum": meta.checksum.map { .string(String(format: "%08x", $0)) } ?? .null,
            "modified": .string(meta.modificationDate.formatted(.iso8601)),
        ])
    }

    /// A value of the records tier's key-value table: `{"key", "size", "modified"}` (`modified` ISO 8601, or null).
    static func keyValue(_ meta: StorageMetadata) -> JSONValue {
        .object([
            "key": .string(meta.key), "size": .integer(Int64(meta.size)),
            "modified": meta.modificationDate.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
        ])
    }

    /// A verdict: `{"ok": Bool, "problems": [...]}`.
    static func verdict(_ problems: [JSONValue], root: String? = nil) -> JSONValue {
        var members: [ExactString: JSONValue] = ["ok": .bool(problems.isEmpty), "problems": .array(problems)]
        if let root { members["root"] = .string(root) }
        return .object(members)
    }
}
