public import Foundation
import StrataCore

// Writing, listing and opening snapshots.
extension BackupRepository {
    /// Which snapshot a new one reuses unchanged files from.
    public enum Parent: Sendable, Hashable {
        /// The latest snapshot of the same host. The default.
        case latest
        /// This snapshot (an id or a unique prefix).
        case snapshot(String)
        /// None: every file is read.
        case none
    }

    /// Begins a snapshot; hand it to the tiers' captures, then commit it.
    ///
    /// Snapshot and index files that cannot be read are left out and listed in ``SnapshotWriter/damaged``: the
    /// parent is chosen among the snapshots that read, and blobs listed only by a damaged index file are stored
    /// again.
    /// - Parameters:
    ///   - parent: The snapshot whose unchanged files are reused unread. The default is ``Parent/latest``.
    ///   - host: The host recorded in the snapshot. The default is this machine's name.
    ///   - readsEverything: Whether to read every file even when the parent has it unchanged (a full read, which
    ///     still stores nothing the repository already holds). The default is `false`.
    /// - Returns: The writer, holding the repository's shared lock until it commits or is abandoned.
    /// - Throws: ``/StrataCore/StorageError``: the lock (`.lockTimeout` while a prune runs), or a parent given by
    ///   ``Parent/snapshot(_:)`` that cannot be read.
    public func beginSnapshot(
        parent: Parent = .latest, host: String = ProcessInfo.processInfo.hostName, readsEverything: Bool = false
    ) throws -> SnapshotWriter {
        let held = try acquire(.shared)
        do {
            removeLeftovers()
            let chosen: (String, SnapshotManifest)?
            var damaged: [DamagedFile] = []
            switch parent {
            case .none:
                chosen = nil
            case .snapshot(let prefix):
                let id = try resolve(prefix)
                chosen = (id, try SnapshotManifest.read(id, in: snapshotFolder, keys: keys))
            case .latest:
                (chosen, damaged) = try latest(of: host)
            }
            return SnapshotWriter(
                repository: self, lock: held, parent: chosen, host: host,
                readsEverything: readsEverything, damaged: damaged)
        } catch {
            held.release()
            throw error
        }
    }

    /// Every snapshot that reads, oldest first, and the snapshot files that do not (damaged, sealed under another
    /// key, from a newer Strata), which are named and left out.
    /// - Throws: ``/StrataCore/StorageError`` only when the repository cannot be read at all (its lock, its folder).
    public func snapshots() throws -> SnapshotList {
        let held = try acquire(.shared)
        defer { held.release() }
        // Whole files: the listing names a snapshot whose file list is damaged too.
        let listing = try manifests()
        return SnapshotList(
            snapshots: listing.intact.map { $0.1.summary(id: $0.0) }.sorted { ($0.time, $0.id) < ($1.time, $1.id) },
            damaged: listing.damaged, foreign: listing.foreign)
    }

    /// Opens a snapshot for reading (a restore).
    ///
    /// Its blobs are found through the index files that read; one that does not is left out, and a blob only it
    /// lists is reported missing, naming it (see ``rebuildIndex()``).
    /// - Parameter id: Its id, or a unique prefix of it.
    /// - Returns: The reader, holding the repository's shared lock until it is released.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (no such snapshot), `.invalidArgument` (an ambiguous prefix),
    ///   or the error of a damaged snapshot.
    public func snapshot(_ id: String) throws -> SnapshotReader {
        let held = try acquire(.shared)
        do {
            let name = try resolve(id)
            // The snapshot before the index: a snapshot is committed after its index file, so every index file it
            // needs is there when the index is listed next.
            let manifest = try SnapshotManifest.read(name, in: snapshotFolder, keys: keys)
            let index = try RepositoryIndex.load(
                from: indexFolder, keys: keys, maximumChunk: configuration.maximumChunk)
            return SnapshotReader(repository: self, id: name, manifest: manifest, index: index, lock: held)
        } catch {
            held.release()
            throw error
        }
    }

    /// The full id a prefix names.
    func resolve(_ prefix: String) throws -> String {
        try BackupRepository.resolve(prefix, in: snapshotFolder, noun: "snapshot", listedBy: "snapshots")
    }

    /// Every snapshot file's manifest, in name order: those that read, those that do not, and the paths of the
    /// entries whose names are no snapshot's. A file removed since the listing (a `forget` running beside) is in
    /// none of them.
    /// - Parameter headerOnly: Whether to read only each snapshot's header (no file list).
    func manifests(headerOnly: Bool = false) throws -> (
        intact: [(String, SnapshotManifest)], damaged: [DamagedFile], foreign: [String]
    ) {
        let (names, foreign) = try BackupRepository.listing(of: snapshotFolder)
        var intact: [(String, SnapshotManifest)] = []
        var damaged: [DamagedFile] = []
        for name in names {
            do {
                intact.append(
                    (name, try SnapshotManifest.read(name, in: snapshotFolder, keys: keys, headerOnly: headerOnly)))
            } catch let error as StorageError {
                if error.code == .notFound { continue }
                damaged.append(DamagedFile(kind: .snapshot, name: name, error: error))
            }
        }
        return (intact, damaged, foreign)
    }

    /// The latest snapshot of `host` with its files, found by reading only the other snapshots' headers, and the
    /// snapshot files that could not be read. A snapshot dated after now (written under a clock set ahead) is
    /// never chosen: it would stay every later backup's parent until that date.
    func latest(of host: String) throws -> (parent: (String, SnapshotManifest)?, damaged: [DamagedFile]) {
        let now = Date()
        var listing = try manifests(headerOnly: true)
        while true {
            guard
                let (id, _) = listing.intact.filter({ $0.1.host == host && $0.1.time <= now }).max(by: {
                    ($0.1.time, $0.0) < ($1.1.time, $1.0)
                })
            else { return (nil, listing.damaged) }
            do {
                return ((id, try SnapshotManifest.read(id, in: snapshotFolder, keys: keys)), listing.damaged)
            } catch let error as StorageError {
                // Forgotten since its header was read, or damaged past its header: the next latest.
                if error.code != .notFound {
                    listing.damaged.append(DamagedFile(kind: .snapshot, name: id, error: error))
                }
                listing.intact.removeAll { $0.0 == id }
            }
        }
    }
}
