public import StrataCore
import StrataFiles

// A capture of the files tier: every file, each read under its shared lock (writers replace or append under the
// exclusive one), with its checksum attribute and its real modification time. Lock files, staging and
// temporaries (names under the reserved prefix) are not captured. The bulk is copied ahead of the store's
// instant, and only what changed meanwhile at it (`FilesCapture`).
extension PosixFileEngine: TierCapturing {
    /// Copies every file of the tier into `sink`, each under its shared lock, with its extended attributes.
    /// - Returns: The files copied (files leaves nothing out).
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` when a writer holds a file's lock too long, or an I/O
    ///   error.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try FilesCapture(self, into: sink, root: root).completed(into: sink)
    }

    /// Copies every file into `sink` ahead of the capture's instant; the steps returned copy again, at the
    /// instant, only the files that changed meanwhile (``FilesCapture``).
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` when a writer holds a file's lock too long, or an I/O
    ///   error.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        try FilesCapture(self, into: sink, root: root)
    }
}
