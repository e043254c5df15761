/// The steps of a tier that copies itself in one go: nothing ahead, the whole tier in ``pin(into:)`` (under the
/// catalog stripes), nothing after. What ``TierCapturing/beginCapture(into:root:)`` returns unless a backend does
/// better; right for a tier whose files are small (defaults suites, a keyring's sealed items).
public final class WholeTierCapture: TierCapture {
    private let tier: any TierCapturing
    private let root: String

    /// Creates the steps of `tier`'s capture under `root`.
    public init(_ tier: any TierCapturing, root: String) {
        self.tier = tier
        self.root = root
    }

    /// Copies the whole tier (``TierCapturing/capture(into:root:)``).
    public func pin(into sink: any CaptureSink) throws -> CaptureReport {
        try tier.capture(into: sink, root: root)
    }

    /// Copies nothing more.
    public func finish(into sink: any CaptureSink) throws -> CaptureReport { CaptureReport() }
}
