public import Foundation

/// A property-list value: what a defaults suite holds, in both Apple plist formats.
public enum PropertyListValue: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

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

    /// About how many bytes the value takes in a binary plist; what the size limits are measured in.
    public var encodedSizeEstimate: Int {
        switch self {
        case .bool: 1
        case .integer: 9
        case .real, .date: 9
        case .string(let string): 3 + string.utf8.count
        case .data(let data): 3 + data.count
        case .array(let items): 3 + items.reduce(0) { $0 + 2 + $1.encodedSizeEstimate }
        case .dictionary(let items): 3 + items.reduce(0) { $0 + 7 + $1.key.utf8.count + $1.value.encodedSizeEstimate }
        }
    }
}

/// The two file formats of Apple property lists.
public enum PropertyListFormat: String, Sendable, Hashable, CaseIterable {
    /// `bplist00`, the compact binary format (the default on disk).
    case binary
    /// The XML format (`<?xml ... <plist version="1.0">`), readable by people and by `plutil`.
    case xml

    /// Serializes a dictionary in this format.
    public func encode(_ dictionary: [String: PropertyListValue]) -> Data {
        switch self {
        case .binary: BinaryPropertyList.encode(.dictionary(dictionary))
        case .xml: XMLPropertyList.encode(.dictionary(dictionary))
        }
    }

    /// Reads a property list of either format, telling them apart by their first bytes.
    /// - Throws: ``PropertyListError`` that says what is wrong and at which byte offset.
    public static func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        if data.starts(with: BinaryPropertyList.magic) { return try BinaryPropertyList.decode(data) }
        if data.starts(with: Array("bplist".utf8)) {
            throw PropertyListError(
                "binary plist version \(String(decoding: data.prefix(8), as: UTF8.self)) is not supported; only bplist00 is",
                offset: 0)
        }
        return try XMLPropertyList.decode(data)
    }
}

/// Why a property list could not be read: what, and at which byte offset.
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The byte offset in the file where it was found.
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) (at byte \(offset))" }
}
