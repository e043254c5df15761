@_exported public import StrataBackup

// A whole store into a backup repository: the capture (`Storage+Capture.swift`) written into a snapshot. A snapshot
// comes back through the restore family (`Storage+Restore.swift`).
extension Storage {
    /// The snapshot metadata key holding the root of the store that was backed up.
    public static let backupRootMetadataKey = "strata.root"
    /// The snapshot metadata key holding how many items the capture left out.
    public static let backupOmissionsMetadataKey = "strata.omissions"

    /// Backs the whole store up into a new snapshot of `repository`, while other threads and processes keep using
    /// the store (see ``capture(into:)`` for what is consistent with what).
    ///
    /// ```swift
    /// let repository = try BackupRepository.open(at: "/backups/notes", key: .keyFile("/etc/notes-backup.key"))
    /// let backup = try storage.backup(to: repository)
    /// print(backup.snapshot.id, backup.snapshot.addedBytes)
    /// ```
    /// - Parameters:
    ///   - repository: The repository.
    ///   - parent: The snapshot whose unchanged files are reused unread. The default is the latest of this host.
    ///   - readsEverything: Whether to read every file even when the parent has it unchanged. The default is `false`.
    ///   - metadata: More to record beside the store's own entries.
    /// - Returns: The committed snapshot and the capture's report.
    /// - Throws: ``/StrataCore/StorageError``: the capture's or the repository's. Nothing becomes visible then:
    ///   the snapshot is abandoned, and packs it wrote are removed by the next prune.
    @discardableResult
    public func backup(
        to repository: BackupRepository, parent: BackupRepository.Parent = .latest, readsEverything: Bool = false,
        metadata: [String: String] = [:]
    ) throws -> StoreBackup {
        let writer = try repository.beginSnapshot(parent: parent, readsEverything: readsEverything)
        return try backup(into: writer, through: writer, metadata: metadata)
    }

    /// Backs the whole store up into `writer`, a snapshot begun by the caller, handing every file to `sink` (which
    /// passes it on to `writer`: a command-line tool's sink reports progress and stops on Ctrl-C), then commits it.
    /// - Parameters:
    ///   - writer: The snapshot being written.
    ///   - sink: What the capture writes to; it forwards every file to `writer`.
    ///   - metadata: More to record beside the store's own entries.
    /// - Returns: The committed snapshot and the capture's report.
    /// - Throws: ``/StrataCore/StorageError``: the capture's, the sink's or the repository's. The snapshot is
    ///   abandoned then, and nothing becomes visible.
    @discardableResult
    public func backup(
        into writer: SnapshotWriter, through sink: some CaptureSink, metadata: [String: String] = [:]
    ) throws -> StoreBackup {
        do {
            let report = try capture(into: sink)
            var recorded = metadata
            recorded[Self.backupRootMetadataKey] = paths.root
            recorded[Self.backupOmissionsMetadataKey] = String(report.omissions.count)
            return StoreBackup(snapshot: try writer.commit(metadata: recorded), capture: report)
        } catch {
            writer.abandon()
            throw error
        }
    }
}
