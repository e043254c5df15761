import StrataCore

/// How an import reports its progress and is stopped.
public struct ImportOptions: Sendable {
    /// Called as entries are extracted (from the importing thread): bytes written out of the archive's declared
    /// total (a zip's entry sizes; for a gzip file, bytes of the file read out of its size).
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Polled between chunks while the archive is extracted; return `true` to stop. The import then throws
    /// `.cancelled` and the store is left as it was: nothing is committed, the staging area is removed. Once every
    /// entry is staged, the commit runs to its end (it is short: renames, or one write per file on a remote engine).
    public var isCancelled: (@Sendable () -> Bool)?

    public init(
        progress: (@Sendable (TransferProgress) -> Void)? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) {
        self.progress = progress
        self.isCancelled = isCancelled
    }

    /// Throws `.cancelled` when asked to stop.
    func checkCancelled(_ archive: String) throws {
        if isCancelled?() == true {
            throw StorageError(
                .cancelled, "the import was stopped before its commit; the store is unchanged", tier: .files,
                path: archive)
        }
    }
}
