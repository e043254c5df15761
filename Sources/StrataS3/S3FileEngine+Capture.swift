public import StrataCore

// A capture of the files tier on S3: every object downloaded ahead of the store's instant, and only what changed
// meanwhile at it (`S3FilesCapture`), as `files/<key>`: the POSIX engine's layout, which every restore writes back.
extension S3FileEngine: TierCapturing {
    /// Downloads every object into `sink` as `files/<key>`.
    /// - Returns: The files copied (nothing is left out).
    /// - Throws: ``/StrataCore/StorageError`` from the server or the sink.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try S3FilesCapture(self, into: sink).completed(into: sink)
    }

    /// Downloads every object into `sink` ahead of the capture's instant; the steps returned download again, at the
    /// instant, only the objects that changed meanwhile (``S3FilesCapture``).
    /// - Throws: ``/StrataCore/StorageError`` from the server or the sink.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        try S3FilesCapture(self, into: sink)
    }
}
