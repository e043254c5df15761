import Foundation
import StrataCore
import StrataSystem

// check: verifies the repository without restoring.
extension BackupRepository {
    /// Verifies the repository: every index and snapshot opens, every chunk a snapshot needs is listed, every
    /// listed pack exists and its own header agrees with the index, every pack no index lists has a header that
    /// reads; with `readData`, the blobs of every pack (or of a random share of them) are opened, decompressed and
    /// checked against their ids.
    /// - Parameter readData: How much pack data to read. The default is ``CheckReport/DataRead/none``.
    /// - Returns: What was checked and every damage found.
    /// - Throws: ``/StrataCore/StorageError`` only when the check itself cannot run (the lock, an unreadable folder).
    public func check(readData: CheckReport.DataRead = .none) throws -> CheckReport {
        let held = try acquire(.shared)
        defer { held.release() }
        var report = CheckReport()
        // Snapshots, then packs, then the index: a backup beside commits its packs, then its index file, then its
        // snapshot, so every snapshot read here has its index file there when the index is read, and every pack
        // listed here that is not indexed yet was not indexed when the listing was made.
        let snapshots = try manifests()
        let onDisk = try BackupRepository.listing(of: data)
        let index = try RepositoryIndex.load(from: indexFolder, keys: keys, maximumChunk: configuration.maximumChunk)
        report.snapshots = snapshots.intact.count
        report.problems += snapshots.damaged.map(\.error) + index.damaged.map(\.error)
        report.foreign = snapshots.foreign + index.foreign + onDisk.foreign
        for (name, manifest) in snapshots.intact {
            var missing = Set<BlobID>()
            for entry in manifest.files {
                for id in entry.chunks where index.blobs[id] == nil { missing.insert(id) }
            }
            for id in missing.sorted() {
                var error = StorageError(
                    .corrupt, "a chunk the snapshot needs is in no pack of the index (missing)", key: id.description,
                    path: snapshotFolder.path(of: name),
                    recovery: index.damaged.isEmpty
                        ? "Restore the repository from a copy, or forget the snapshot"
                        : "Run `check --repair` to rebuild the index from the packs: an index file could not be read")
                error.collection = name
                report.problems.append(error)
            }
        }
        for name in onDisk.ids where index.packs[name] == nil {
            switch packRecord(fromHeaderOf: name) {
            case nil: report.foreign.append(data.path(of: name))
            case .success: report.unindexedPacks += 1
            case .failure(let error): report.problems.append(error)
            }
        }
        let packs = index.packs.values.sorted { $0.name < $1.name }
        let reading: Set<String>
        switch readData {
        case .none: reading = []
        case .all: reading = Set(packs.map(\.name))
        case .fraction(let share):
            let count = Int((Double(packs.count) * min(max(share, 0), 1)).rounded(.up))
            reading = Set(packs.shuffled().prefix(count).map(\.name))
        }
        for pack in packs {
            report.packs += 1
            do {
                let reader = try PackReader(name: pack.name, in: data, keys: keys)
                guard reader.size == pack.size else {
                    throw StorageError(
                        .corrupt, "the pack is \(reader.size) bytes; the index says \(pack.size) (truncated?)",
                        path: reader.path)
                }
                guard try reader.header() == pack.blobs else {
                    throw StorageError(.corrupt, "the pack's header disagrees with the index", path: reader.path)
                }
                guard reading.contains(pack.name) else { continue }
                for entry in pack.blobs {
                    guard let id = BlobID(hex: entry.id) else { continue }
                    do {
                        _ = try reader.blob(entry, id: id)
                        report.blobsRead += 1
                    } catch let error as StorageError {
                        report.problems.append(error)
                    }
                }
            } catch let error as StorageError {
                report.problems.append(error)
            }
        }
        return report
    }
}
