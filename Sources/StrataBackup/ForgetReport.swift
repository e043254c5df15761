/// What ``BackupRepository/forget(_:dryRun:)`` kept and forgot (or would, in a dry run).
public struct ForgetReport: Sendable, Hashable {
    /// The snapshots kept, oldest first.
    public var kept: [SnapshotSummary]
    /// The snapshots forgotten, oldest first. Their data stays until ``BackupRepository/prune()``.
    public var forgotten: [SnapshotSummary]
}
