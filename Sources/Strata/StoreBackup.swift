@_exported public import StrataBackup

/// What ``Storage/backup(to:parent:readsEverything:metadata:)`` did: the snapshot it committed and what the
/// capture copied and left out.
public struct StoreBackup: Sendable, Hashable {
    /// The committed snapshot (its id, sizes, and how much was new).
    public var snapshot: SnapshotSummary
    /// What the capture copied, and the items it left out on purpose (`ThisDeviceOnly` secrets).
    public var capture: CaptureReport

    /// Creates a result.
    public init(snapshot: SnapshotSummary, capture: CaptureReport) {
        self.snapshot = snapshot
        self.capture = capture
    }
}
