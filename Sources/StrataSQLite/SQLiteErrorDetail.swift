public import StrataCore
import StrataRecords

/// What a SQLite error adds to a ``/StrataCore/StorageError``: SQLite's extended result code (`2067` for a unique
/// constraint, `26` for a file that is not a database, …). Read it as `error.sqlite`.
public struct SQLiteErrorDetail: StorageErrorDetail {
    /// SQLite's extended result code.
    public var extendedResultCode: Int32

    /// Creates a detail.
    public init(extendedResultCode: Int32) { self.extendedResultCode = extendedResultCode }

    /// `code 2067`.
    public var description: String { "code \(extendedResultCode)" }
}

extension StorageError {
    /// SQLite's extended result code, for an error of the SQLite records engine; `nil` for others.
    public var sqlite: SQLiteErrorDetail? { detail as? SQLiteErrorDetail }
}
