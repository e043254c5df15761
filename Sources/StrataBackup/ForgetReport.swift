/// What ``BackupRepository/forget(_:dryRun:)`` kept and forgot (or would, in a dry run).
public struct ForgetReport: Sendable, Hashable {
    /// The snapshots kept, oldest first.
    public var kept: [SnapshotSummary]
    /// The snapshots forgotten, oldest first. Their data stays until ``BackupRepository/prune()``.
    public var forgotten: [SnapshotSummary]
    /// The snapshot files that could not be read: neither kept nor forgotten by the policy, left as they are (forget
    /// one by its id with ``BackupRepository/forget(ids:)``).
    public var damaged: [DamagedFile] = []
}
