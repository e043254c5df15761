public import StrataCore
import StrataRecords

// A capture of a SQLite record store: never the live file (a checkpoint may be copying the WAL into it, and the
// WAL holds what the file does not), but a copy made by SQLite's online backup API into a private temporary file
// beside it (mode 0600, a reserved name), of the database at one point in time (`SQLiteCapture`).
extension SQLiteRecordEngine: TierCapturing {
    /// The prefix of the temporary copies a capture makes beside the store.
    static let capturePrefix = StoragePaths.reservedPrefix + "capture-"

    /// Copies the database into `sink` through a consistent copy of it.
    /// - Returns: The file copied (SQLite leaves nothing out).
    /// - Throws: ``/StrataCore/StorageError`` when the database cannot be copied, or from the sink.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try SQLiteCapture(self, root: root).completed(into: sink)
    }

    /// The steps of a capture that holds the database still with a read transaction at the instant and copies it
    /// after (``SQLiteCapture``).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the database is not under `root`.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        try SQLiteCapture(self, root: root)
    }
}
