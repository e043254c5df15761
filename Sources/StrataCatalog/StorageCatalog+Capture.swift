package import StrataCore
import StrataSystem
import Synchronization

// The catalog's part in a capture of the store: holding every key still, and copying the log as it is.
extension StorageCatalog {
    /// The log's path relative to the store root, as a capture records it.
    package static let capturedLogPath = "catalog/log"

    /// Runs `body` holding every key's stripe lock, across threads and processes: no key is put, moved or deleted
    /// through any `Storage` on this root until it returns (readers are not held up). Cross-process rule: stripes
    /// are taken in stripe order, and every other holder takes one stripe at a time, so this cannot deadlock.
    package func withEveryKeyLock<T>(_ body: () throws -> T) throws -> T {
        try locks.withEveryStripe(body)
    }

    /// Hands the log, as it is, to `sink` (under the log lock, so no append or compaction is half-way). The
    /// sequence file and the lock files are not part of a capture: an opened catalog makes them anew.
    /// - Returns: The description handed to the sink.
    /// - Throws: ``StorageError`` when the log cannot be read, or from the sink.
    @discardableResult
    package func capture(into sink: any CaptureSink) throws -> CapturedFile {
        try locks.withLog {
            try state.withLock { state in
                try sink.add(descriptor: state.fd, path: Self.capturedLogPath, tier: nil)
            }
        }
    }

    /// The log copied at the instant (``capture(into:)``, in `pin`), nothing after.
    package func beginCapture() -> any TierCapture { CatalogLogCapture(self) }
}
