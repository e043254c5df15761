public import StrataCore

extension StorageError.Code {
    /// The file exists but is not a store of this kind: not a SQLite database at all, or another program's
    /// SQLite database. Nothing in it was changed. Distinct from ``corrupt`` (a store of ours, damaged) and
    /// ``unsupportedVersion`` (a store of ours from a newer program), so callers can tell the three apart.
    public static let notAStore = StorageError.Code(rawValue: "not-a-store")
}
