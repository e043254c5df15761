public import StrataCore

// A capture of a PostgreSQL record store: the store's schema, exported as JSON Lines from one REPEATABLE READ
// snapshot taken at the capture's instant (`PostgresCapture`).
extension PostgresRecordEngine: TierCapturing {
    /// Exports the store into `sink` from one snapshot.
    /// - Throws: ``/StrataCore/StorageError`` when the server fails, or from the sink.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try PostgresCapture(self).completed(into: sink)
    }

    /// The steps of a capture that takes its snapshot at the instant and exports it after (``PostgresCapture``).
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        PostgresCapture(self)
    }
}
