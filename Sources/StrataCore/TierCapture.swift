/// A capture of one tier taken in steps, so that the store's writers wait only for the short middle one: what a
/// ``TierCapturing`` backend returns from ``TierCapturing/beginCapture(into:root:)``.
///
/// A capture of the whole store runs every tier's steps together:
///
/// 1. ``TierCapturing/beginCapture(into:root:)``, with no catalog lock held: a tier may copy its bulk ahead (the
///    files tier copies every file, each under its own lock).
/// 2. ``pin(into:)``, while every catalog key stripe is held (no put, move or delete through a `Storage` runs): the
///    tier makes its capture describe this instant, quickly — it copies what changed since step 1, names what it
///    copied in step 1 that is no longer current (``CaptureReport/withdrawnPaths``), or holds its state still (a
///    database's read transaction).
/// 3. ``finish(into:)``, after the stripes are released: the tier copies the state it held still in step 2.
///
/// ```swift
/// let capture = try tier.beginCapture(into: sink, root: root)   // no lock
/// var report = try catalogLocks.holdingAll { try capture.pin(into: sink) }
/// report.merge(try capture.finish(into: sink))                   // writers go on
/// ```
public protocol TierCapture: AnyObject {
    /// Makes the capture describe this instant. The caller holds every catalog key stripe, so this should take
    /// milliseconds, not the time of copying the tier.
    /// - Returns: What was copied in this step and ``TierCapturing/beginCapture(into:root:)``, and which earlier
    ///   files a restore must leave out.
    /// - Throws: ``StorageError`` when a file cannot be read or the state cannot be held, or from the sink.
    func pin(into sink: any CaptureSink) throws -> CaptureReport
    /// ``pin(into:)`` within a capture of the whole store, whose steps share `instant`: a tier that reads from a
    /// place other tiers read from too (a database server) takes the state it holds still from the instant, so
    /// that all of them describe one snapshot. The default is ``pin(into:)``.
    /// - Throws: As ``pin(into:)``.
    func pin(into sink: any CaptureSink, at instant: CaptureInstant) throws -> CaptureReport
    /// Copies what ``pin(into:)`` held still, and lets go of it.
    /// - Returns: What was copied in this step.
    /// - Throws: ``StorageError`` when the state cannot be read, or from the sink.
    func finish(into sink: any CaptureSink) throws -> CaptureReport
}

extension TierCapture {
    /// Holds nothing shared: ``pin(into:)``.
    public func pin(into sink: any CaptureSink, at instant: CaptureInstant) throws -> CaptureReport {
        try pin(into: sink)
    }

    /// Runs the remaining steps at once, ``pin(into:)`` then ``finish(into:)``: the capture of a tier on its own,
    /// with no store's instant to share (``TierCapturing/capture(into:root:)``).
    /// - Returns: What both steps copied and withdrew.
    /// - Throws: What either step throws.
    public func completed(into sink: any CaptureSink) throws -> CaptureReport {
        var report = try pin(into: sink)
        report.merge(try finish(into: sink))
        return report
    }
}
