import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// forget, prune and rebuilding the index.
extension BackupRepository {
    /// Forgets the snapshots `policy` does not keep: their snapshot files are deleted; their data stays until
    /// ``prune()``. Snapshot files that cannot be read are left as they are, and listed in the report.
    /// - Parameters:
    ///   - policy: What to keep. A policy that keeps nothing is refused.
    ///   - dryRun: Whether to only report what would be forgotten. The default is `false`.
    /// - Returns: What was kept, forgotten and left as it is.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for an empty policy, or an error deleting.
    public func forget(_ policy: RetentionPolicy, dryRun: Bool = false) throws -> ForgetReport {
        guard !policy.keepsNothing else {
            throw StorageError(
                .invalidArgument, "the retention policy keeps no snapshot",
                recovery: "Give keepLast, keepDaily, keepWeekly or keepMonthly")
        }
        // Shared: forgetting only lowers what a prune (exclusive) would keep.
        let held = try acquire(.shared)
        defer { held.release() }
        let listing = try manifests(headerOnly: true)
        let all = listing.intact.map { $0.1.summary(id: $0.0) }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        let keep = policy.kept(all)
        let report = ForgetReport(
            kept: all.filter { keep.contains($0.id) }, forgotten: all.filter { !keep.contains($0.id) },
            damaged: listing.damaged)
        guard !dryRun else { return report }
        for snapshot in report.forgotten { try delete(snapshot.id, in: snapshotFolder) }
        try snapshotFolder.sync()
        return report
    }

    /// Forgets the snapshots named, whether or not their files can be read: how a damaged snapshot file is
    /// removed. Their data stays until ``prune()``.
    /// - Parameter ids: Snapshot ids, or unique prefixes of them.
    /// - Returns: The full ids forgotten.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` or `.invalidArgument` (an ambiguous prefix) before anything
    ///   is deleted, or an error deleting.
    @discardableResult
    public func forget(ids: [String]) throws -> [String] {
        let held = try acquire(.shared)
        defer { held.release() }
        let names = try ids.map(resolve)
        for name in names { try delete(name, in: snapshotFolder) }
        try snapshotFolder.sync()
        return names
    }

    /// Removes the blobs no snapshot needs, under the repository's exclusive lock.
    ///
    /// Packs whose every blob is needed stay; packs with no needed blob are deleted; the needed blobs of the
    /// others are copied (sealed, as they are, after verifying them) into new packs. The order makes a kill at
    /// any point harmless: new packs durable → one new index durable listing every kept blob → old index files
    /// deleted → old packs deleted. Until the new index exists the old ones list only packs still there; after,
    /// it lists only packs that stay. Packs no index lists (an interrupted backup or prune, or an index file that
    /// cannot be read) are read from their own headers and treated as listed.
    ///
    /// Damage stays local: only what prune can read is changed. An index or snapshot file that cannot be read is
    /// left as it is; while a snapshot file cannot be read, no blob is removed but those stored twice (its needs
    /// are unknown). Entries of `data/` that are not packs this repository wrote are never touched.
    /// - Returns: What was removed, and what was left out.
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` while backups run, or an error reading a needed blob
    ///   (`.corrupt`, `.authenticationFailed`) or writing, before any file is deleted.
    public func prune() throws -> PruneReport {
        let held = try acquire(.exclusive)
        defer { held.release() }
        removeLeftovers()
        var report = PruneReport()
        var index = try RepositoryIndex.load(from: indexFolder, keys: keys, maximumChunk: configuration.maximumChunk)
        let snapshots = try manifests()
        report.damaged = index.damaged + snapshots.damaged
        // Packs no index file lists: this repository's when their headers read.
        var unlisted: [PackRecord] = []
        let onDisk = try BackupRepository.listing(of: data)
        report.foreign = onDisk.foreign
        for name in onDisk.ids where index.packs[name] == nil {
            guard case .success(let record) = packRecord(fromHeaderOf: name) else {
                report.foreign.append(data.path(of: name))
                continue
            }
            unlisted.append(record)
        }
        index.add(unlisted)
        var needed = Set<BlobID>()
        if snapshots.damaged.isEmpty {
            for (_, manifest) in snapshots.intact {
                for entry in manifest.files { needed.formUnion(entry.chunks) }
            }
            report.missingBlobs = needed.count { index.blobs[$0] == nil }
        } else {
            needed = Set(index.blobs.keys)
        }
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
        guard !obsolete.isEmpty || index.files.count > 1 || !unlisted.isEmpty else { return report }
        // The commit point of a prune: one index listing every kept blob.
        let newIndex = try RepositoryIndex.write(kept, in: indexFolder, keys: keys)
        // The index files read: those that could not be read are left as they are (`rebuildIndex` replaces them).
        for name in index.files where name != newIndex {
            try delete(name, in: indexFolder)
            report.indexFilesReplaced += 1
        }
        try indexFolder.sync()
        for pack in obsolete {
            try delete(pack.name, in: data)
            report.packsDeleted += 1
            report.bytesFreed += Int64(pack.size)
        }
        let listed = Set(packs.map(\.name))
        report.bytesFreed -= Int64(kept.filter { !listed.contains($0.name) }.reduce(0) { $0 + $1.size })
        try data.sync()
        return report
    }

    /// Replaces every index file by one listing the packs of `data/`, each read from its own header: what repairs an
    /// index file that cannot be read (the packs list their own blobs). A pack whose header cannot be read keeps
    /// what an intact index file lists of it, if any (`check` still reports it). Runs under the exclusive lock, and
    /// writes the new index durably before it deletes the old files, so a kill at any point loses nothing.
    ///
    /// Nothing but index files named as the repository names them is deleted; snapshots and packs are not changed.
    /// - Returns: What the new index lists, and what was left out.
    /// - Throws: ``/StrataCore/StorageError`` `.unsupportedVersion` before anything is changed when an index file or
    ///   pack is of a newer format (the Strata that wrote it should repair it), `.lockTimeout` while backups run, or
    ///   an I/O error.
    public func rebuildIndex() throws -> IndexRebuildReport {
        let held = try acquire(.exclusive)
        defer { held.release() }
        removeLeftovers()
        var report = IndexRebuildReport()
        let old = try RepositoryIndex.load(from: indexFolder, keys: keys, maximumChunk: configuration.maximumChunk)
        let onDisk = try BackupRepository.listing(of: data)
        report.foreign = onDisk.foreign + old.foreign
        var records: [PackRecord] = []
        for name in onDisk.ids {
            switch packRecord(fromHeaderOf: name) {
            case nil:
                report.foreign.append(data.path(of: name))
            case .success(let record):
                records.append(record)
            case .failure(let error):
                if error.code == .unsupportedVersion { throw error }
                if let listed = old.packs[name] { records.append(listed) }
                report.unreadablePacks.append(error)
            }
        }
        if let newer = old.damaged.first(where: { $0.error.code == .unsupportedVersion }) { throw newer.error }
        // The damaged index files are replaced when they are files; anything else there is not the repository's.
        var damaged: [DamagedFile] = []
        for file in old.damaged {
            let mode = (try? indexFolder.status(of: file.name))?.st_mode ?? 0
            if mode & S_IFMT == S_IFREG {
                damaged.append(file)
            } else {
                report.foreign.append(indexFolder.path(of: file.name))
            }
        }
        let newIndex = records.isEmpty ? nil : try RepositoryIndex.write(records, in: indexFolder, keys: keys)
        for name in old.files + damaged.map(\.name) where name != newIndex {
            try delete(name, in: indexFolder)
            report.indexFilesReplaced += 1
        }
        try indexFolder.sync()
        report.packs = records.count
        report.blobs = records.reduce(0) { $0 + $1.blobs.count }
        report.damaged = damaged
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
    }
}
