public import Foundation
public import StrataCore

/// A property-list value: what a defaults suite holds, in both Apple plist formats.
///
/// Dictionary keys are ``/StrataCore/ExactString``s: two keys that differ only in Unicode normalization (`"caf\u{E9}"`
/// and `"cafe\u{301}"`) are two entries, as they are in the file. String literals work as keys:
///
/// ```swift
/// let value: PropertyListValue = .dictionary(["theme": .string("dark")])
/// value.dictionaryValue?["theme"]     // .string("dark")
/// value["theme"]                      // the same, for a key held in a String
/// ```
public enum PropertyListValue: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([ExactString: PropertyListValue])

    /// The name of the case, for error messages (`integer`, `string`, ...).
    public var typeName: String {
        switch self {
        case .bool: "bool"
        case .integer: "integer"
        case .real: "real"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The entries of a dictionary, or `nil` for any other case.
    public var dictionaryValue: [ExactString: PropertyListValue]? {
        guard case .dictionary(let items) = self else { return nil }
        return items
    }

    /// The elements of an array, or `nil` for any other case.
    public var arrayValue: [PropertyListValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// The value of a dictionary's key, matched by its exact Unicode scalars; `nil` when the key is absent or
    /// this is not a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[ExactString(key)]
    }

    /// About how many bytes the value takes in a binary plist; what the size limits are measured in.
    ///
    /// Each place a shared value appears counts in full. The walk keeps its own stack, so any nesting is safe;
    /// a value that was read from a file is within ``PropertyListLimits``, so this ends quickly.
    public var encodedSizeEstimate: Int {
        footprint(upToNodes: .max).size
    }

    /// What one value adds to the estimate by itself: its whole size for a scalar, its header and the
    /// per-entry overhead for a container (its entries are counted on their own).
    static func ownSize(_ value: PropertyListValue) -> Int {
        switch value {
        case .bool: 1
        case .integer, .real, .date: 9
        case .string(let string): 3 + string.utf8.count
        case .data(let data): 3 + data.count
        case .array(let items): 3 + 2 * items.count
        case .dictionary(let items): items.keys.reduce(3 + 7 * items.count) { $0 + $1.string.utf8.count }
        }
    }
}
