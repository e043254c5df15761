public import Foundation
public import StrataCore

/// The two file formats of Apple property lists.
public enum PropertyListFormat: String, Sendable, Hashable, CaseIterable {
    /// `bplist00`, the compact binary format (the default on disk).
    case binary
    /// The XML format (`<?xml ... <plist version="1.0">`), readable by people and by `plutil`.
    case xml

    /// Serializes a dictionary in this format.
    public func encode(_ dictionary: [ExactString: PropertyListValue]) -> Data {
        switch self {
        case .binary: BinaryPropertyList.encode(.dictionary(dictionary))
        case .xml: XMLPropertyList.encode(.dictionary(dictionary))
        }
    }

    /// Reads a property list of either format, telling them apart by their first bytes.
    /// - Parameters:
    ///   - data: The document.
    ///   - limits: The largest value accepted, measured expanded. The default is ``PropertyListLimits/default``.
    /// - Throws: ``PropertyListError`` that says what is wrong and at which byte offset: malformed input, a
    ///   dictionary with the same key (the same scalars) twice, or a value over `limits`.
    public static func decode(
        _ data: Data, limits: PropertyListLimits = .default
    ) throws(PropertyListError) -> PropertyListValue {
        if data.starts(with: BinaryPropertyList.magic) { return try BinaryPropertyList.decode(data, limits: limits) }
        if data.starts(with: Array("bplist".utf8)) {
            throw PropertyListError(
                "binary plist version \(String(decoding: data.prefix(8), as: UTF8.self)) is not supported; only bplist00 is",
                offset: 0)
        }
        return try XMLPropertyList.decode(data, limits: limits)
    }
}
