public import StrataCore

// A file store is captured by its engine: only the engine knows what a consistent copy of its files is.
extension FileStore: TierCapturing {
    /// Copies the store into `sink` through its engine's capture.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the engine cannot capture itself, or the engine's
    ///   error.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try capturingEngine().capture(into: sink, root: root)
    }

    /// The steps of the engine's capture.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the engine cannot capture itself, or the engine's
    ///   error.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        try capturingEngine().beginCapture(into: sink, root: root)
    }

    private func capturingEngine() throws -> any TierCapturing {
        guard let engine = engine as? any TierCapturing else {
            throw StorageError(
                .notBuiltIn, "the '\(engine.name)' files engine cannot capture itself", tier: .files,
                recovery: "Back up its files with the engine's own tools (bucket versioning, replication), or use an "
                    + "engine that adopts TierCapturing")
        }
        return engine
    }
}
