/// A tier backend that copies itself, at one point in time, into a ``CaptureSink``: what a backup of a whole
/// store asks of each tier.
///
/// Each backend knows what makes its own files consistent (its locks, its database's snapshot) and takes it while
/// it hands the files to the sink; nothing outside the backend restates those rules. What it leaves out on
/// purpose (a secret bound to this machine) is reported, never silently dropped.
///
/// ```swift
/// if let tier = backend as? any TierCapturing {
///     let report = try tier.capture(into: sink, root: storage.paths.root)
///     report.omissions.forEach { print($0) }
/// }
/// ```
public protocol TierCapturing: Sendable {
    /// Writes a consistent copy of every file this tier keeps under `root` into `sink`, each path relative to
    /// `root`, in an order a restore can write them back in.
    /// - Parameters:
    ///   - sink: Where the files go.
    ///   - root: The store root the paths are made relative to.
    /// - Returns: What was captured and what was left out, and why.
    /// - Throws: ``StorageError`` when a file cannot be read or locked, or from the sink.
    func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport
    /// Starts a capture in steps (``TierCapture``), copying ahead whatever can be copied before the store's
    /// writers are held. The default copies nothing ahead: ``WholeTierCapture``.
    /// - Parameters:
    ///   - sink: Where the files go.
    ///   - root: The store root the paths are made relative to.
    /// - Returns: The remaining steps.
    /// - Throws: ``StorageError`` when a file cannot be read, or from the sink.
    func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture
}

extension TierCapturing {
    /// Copies nothing ahead: the whole tier is copied by the returned steps' ``TierCapture/pin(into:)``.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        WholeTierCapture(self, root: root)
    }
}
