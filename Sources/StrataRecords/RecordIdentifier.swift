public import Foundation

/// An identifier type records can use: it maps to and from the text key stored in the database.
public protocol RecordIdentifier: Hashable, Sendable, Codable {
    /// The key stored in the `id` column.
    var recordKey: String { get }
    /// Reads a stored key back; `nil` when it is not one of this type.
    init?(recordKey: String)
    /// The id as it appears inside JSON (a number for integer ids), for matching references to it.
    var queryValue: QueryValue { get }
}

extension RecordIdentifier {
    public var queryValue: QueryValue { .text(recordKey) }
}

extension String: RecordIdentifier {
    public var recordKey: String { self }
    public init?(recordKey: String) { self = recordKey }
}

extension Int: RecordIdentifier {
    public var recordKey: String { String(self) }
    public var queryValue: QueryValue { .integer(Int64(self)) }
    public init?(recordKey: String) { self.init(recordKey) }
}

extension Int64: RecordIdentifier {
    public var recordKey: String { String(self) }
    public var queryValue: QueryValue { .integer(self) }
    public init?(recordKey: String) { self.init(recordKey) }
}

extension UUID: RecordIdentifier {
    public var recordKey: String { uuidString }
    public init?(recordKey: String) { self.init(uuidString: recordKey) }
}

/// A record: `Codable`, `Identifiable` by a ``RecordIdentifier``, `Sendable`.
///
/// ```swift
/// struct Person: Record {
///     var id: String
///     var name: String
///     var email: String
///     var age: Int
///     var tags: [String]
/// }
/// ```
public typealias Record = Codable & Identifiable & Sendable
