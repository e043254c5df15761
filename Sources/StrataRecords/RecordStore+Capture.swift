public import StrataCore

// A record store is captured by its engine: only the engine knows what a consistent copy of its data is.
extension RecordStore: TierCapturing {
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
                .notBuiltIn, "the '\(engine.name)' record engine cannot capture itself", tier: .records,
                recovery: "Back up its data with the engine's own tools, or use an engine that adopts TierCapturing")
        }
        return engine
    }
}
