/// A record type that reads itself from its stored JSON field by field, without `Codable`'s containers.
///
/// `Codable` stays the default and needs nothing. A type that also conforms to `RecordDecodable` is read with
/// ``init(record:)`` instead of `init(from:)` by every read of a collection of it: `get`, `fetch`, queries and
/// scans. The reader hands each field straight from the stored bytes, so a read skips the decoding box, its
/// run-time type lookups and the coding path `Codable` carries.
///
/// The conformance must read what `Encodable` wrote: the same keys, the same types. A missing or mistyped field
/// throws the same ``/StrataCore/StorageError`` (`.typeMismatch`, naming the record, the field and the collection)
/// as the `Codable` path.
///
/// ```swift
/// struct Person: Record, RecordDecodable {
///     var id: String
///     var name: String
///     var age: Int
///     var nickname: String?
///     var tags: [String]
///
///     init(record: borrowing RecordReader) throws {
///         id = try record.decode(forKey: "id")
///         name = try record.decode(forKey: "name")
///         age = try record.decode(forKey: "age")
///         nickname = try record.decodeIfPresent(forKey: "nickname")
///         tags = try record.decode(forKey: "tags")
///     }
/// }
/// ```
public protocol RecordDecodable: Decodable, Sendable {
    /// Reads the record from the fields of its stored JSON object.
    /// - Parameter record: The record's fields, lent for the duration of the call.
    /// - Throws: What the reader throws for a missing or mistyped field; or an error of the type's own.
    init(record: borrowing RecordReader) throws
}

extension RecordDecodable {
    /// Reads a stored record of this type as `R`, the caller's generic name for `Self` (a caller that found the
    /// conformance at run time gets its own type back without a dynamic cast), with the store's errors. Inlinable,
    /// so that it is specialized where the record type is known.
    @inlinable
    static func readRecord<R>(from bytes: UnsafeRawBufferPointer, as type: R.Type, collection: String, id: String?)
        throws -> R
    {
        var record: R?
        try RecordReader.read(from: bytes, as: R.self, collection: collection, id: id) { reader in
            // The same type: specialized, the cast is nothing, where `unsafeBitCast` made a copy of the record.
            record = try Self(record: reader) as? R
        }
        return record.take()!  // `read` returns only after the closure ran.
    }
}
