import Foundation
import StrataCore

// forget and prune.
extension BackupRepository {
    /// Forgets the snapshots `policy` does not keep: their snapshot files are deleted; their data stays until
    /// ``prune()``.
    /// - Parameters:
    ///   - policy: What to keep. A policy that keeps nothing is refused.
    ///   - dryRun: Whether to only report what would be forgotten. The default is `false`.
    /// - Returns: What was kept and forgotten.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for an empty policy, or the error of a damaged
    ///   snapshot.
    public func forget(_ policy: RetentionPolicy, dryRun: Bool = false) throws -> ForgetReport {
        guard !policy.keepsNothing else {
            throw StorageError(
                .invalidArgument, "the retention policy keeps no snapshot",
                recovery: "Give keepLast, keepDaily, keepWeekly or keepMonthly")
        }
        // Shared: forgetting only lowers what a prune (exclusive) would keep.
        let held = try acquire(.shared)
        defer { held.release() }
        let all = try manifests(headerOnly: true).map { $0.1.summary(id: $0.0) }.sorted {
            ($0.time, $0.id) < ($1.time, $1.id)
        }
        let keep = policy.kept(all)
        let report = ForgetReport(
            kept: all.filter { keep.contains($0.id) }, forgotten: all.filter { !keep.contains($0.id) })
        guard !dryRun else { return report }
        for snapshot in report.forgotten { try delete(snapshot.id, in: snapshotFolder) }
        try snapshotFolder.sync()
        return report
    }

    /// Removes the blobs no snapshot needs, under the repository's exclusive lock.
    ///
    /// Packs whose every blob is needed stay; packs with no needed blob are deleted; the needed blobs of the
    /// others are copied (sealed, as they are, after verifying them) into new packs. The order makes a kill at
    /// any point harmless: new packs durable → one new index durable listing every kept blob → old index files
    /// deleted → old packs deleted. Until the new index exists the old ones list only packs still there; after,
    /// it lists only packs that stay. Packs no index lists (an interrupted backup or prune) are deleted too.
    /// - Returns: What was removed.
    /// - Throws: ``/StrataCore/StorageError`` before anything is deleted when a snapshot, an index or a needed blob is
    ///   damaged or missing (`.corrupt`, `.authenticationFailed`), or `.lockTimeout` while backups run.
    public func prune() throws -> PruneReport {
        let held = try acquire(.exclusive)
        defer { held.release() }
        removeLeftovers()
        let index = try RepositoryIndex.load(
            from: indexFolder, keys: keys, maximumChunk: configuration.maximumChunk)
        var needed = Set<BlobID>()
        for (id, manifest) in try manifests() {
            for entry in manifest.files {
                for blob in entry.chunks {
                    guard index.blobs[blob] != nil else {
                        var error = StorageError(
                            .corrupt, "a snapshot needs a chunk that no index lists; nothing was pruned",
                            key: blob.description,
                            path: snapshotFolder.path(of: id), recovery: "Run `check`")
                        error.collection = id
                        throw error
                    }
                    needed.insert(blob)
                }
            }
        }
        var report = PruneReport()
        var kept: [PackRecord] = []
        var obsolete: [PackRecord] = []
        var placed = Set<BlobID>()
        // Whole packs first, so a blob listed twice stays where its pack stays.
        let packs = index.packs.values.sorted { $0.name < $1.name }
        var partial: [PackRecord] = []
        for pack in packs {
            let ids = pack.blobs.compactMap { BlobID(hex: $0.id) }
            if !ids.isEmpty, ids.allSatisfy({ needed.contains($0) && !placed.contains($0) }) {
                kept.append(pack)
                placed.formUnion(ids)
            } else {
                partial.append(pack)
            }
        }
        var writer: PackWriter?
        for pack in partial {
            let wanted = pack.blobs.filter {
                guard let id = BlobID(hex: $0.id) else { return false }
                return needed.contains(id) && !placed.contains(id)
            }
            obsolete.append(pack)
            report.blobsRemoved += pack.blobs.count - wanted.count
            guard !wanted.isEmpty else { continue }
            let reader = try PackReader(name: pack.name, in: data, keys: keys)
            for entry in wanted {
                let id = BlobID(hex: entry.id)!
                _ = try reader.blob(entry, id: id)  // Verified before it is copied.
                let sealed = try reader.read(at: entry.offset, count: entry.length)
                if writer == nil { writer = try PackWriter(in: data, keys: keys) }
                try writer!.add(sealed, id: id, type: entry.type, rawLength: entry.rawLength)
                placed.insert(id)
                KillPoint.reach("prune copied a blob")
                if writer!.size >= configuration.packSize {
                    kept.append(try writer!.finish())
                    writer = nil
                    report.packsWritten += 1
                }
            }
        }
        if let last = writer {
            kept.append(try last.finish())
            report.packsWritten += 1
        }
        let keptNames = Set(kept.map(\.name))
        let orphans = try BackupRepository.names(in: data).filter { index.packs[$0] == nil && !keptNames.contains($0) }
        guard !obsolete.isEmpty || index.files.count > 1 || !orphans.isEmpty else { return report }
        // The commit point of a prune: one index listing every kept blob.
        let newIndex = try RepositoryIndex.write(kept, in: indexFolder, keys: keys)
        KillPoint.reach("prune index written")
        for name in index.files where name != newIndex {
            try delete(name, in: indexFolder)
            report.indexFilesReplaced += 1
        }
        try indexFolder.sync()
        KillPoint.reach("old index files deleted")
        for pack in obsolete {
            try delete(pack.name, in: data)
            report.packsDeleted += 1
            report.bytesFreed += Int64(pack.size)
        }
        for name in orphans {
            report.bytesFreed += Int64((try? data.status(of: name))??.st_size ?? 0)
            try delete(name, in: data)
            report.packsDeleted += 1
        }
        report.bytesFreed -= Int64(kept.filter { !index.packs.keys.contains($0.name) }.reduce(0) { $0 + $1.size })
        try data.sync()
        return report
    }

    func delete(_ name: String, in folder: DirectoryHandle) throws {
        do throws(Errno) {
            try folder.unlink(name)
        } catch {
            guard error.code == ENOENT else {
                throw error.storageError("cannot delete a file of the repository", path: folder.path(of: name))
            }
        }
        KillPoint.reach("deleted \(name)")
    }
}
