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
    /// - Parameters:
    ///   - parent: The snapshot whose unchanged files are reused unread. The default is ``Parent/latest``.
    ///   - host: The host recorded in the snapshot. The default is this machine's name.
    ///   - readsEverything: Whether to read every file even when the parent has it unchanged (a full read, which
    ///     still stores nothing the repository already holds). The default is `false`.
    /// - Returns: The writer, holding the repository's shared lock until it commits or is abandoned.
    /// - Throws: ``/StrataCore/StorageError``: the lock (`.lockTimeout` while a prune runs), a damaged parent. (The
    ///   index is read by the writer when the first chunk needs it, and a damaged index file is thrown from that
    ///   `add`.)
    public func beginSnapshot(
        parent: Parent = .latest, host: String = ProcessInfo.processInfo.hostName, readsEverything: Bool = false
    ) throws -> SnapshotWriter {
        let held = try acquire(.shared)
        do {
            removeLeftovers()
            let chosen: (String, SnapshotManifest)?
            switch parent {
            case .none:
                chosen = nil
            case .snapshot(let prefix):
                let id = try resolve(prefix)
                chosen = (id, try SnapshotManifest.read(id, in: snapshotFolder, keys: keys))
            case .latest:
                chosen = try latest(of: host)
            }
            return SnapshotWriter(
                repository: self, lock: held, parent: chosen, host: host,
                readsEverything: readsEverything)
        } catch {
            held.release()
            throw error
        }
    }

    /// Every snapshot, oldest first.
    /// - Throws: ``/StrataCore/StorageError`` naming a snapshot file that is damaged.
    public func snapshots() throws -> [SnapshotSummary] {
        let held = try acquire(.shared)
        defer { held.release() }
        return try manifests().map { $0.1.summary(id: $0.0) }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }

    /// Opens a snapshot for reading (a restore).
    /// - Parameter id: Its id, or a unique prefix of it.
    /// - Returns: The reader, holding the repository's shared lock until it is released.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (no such snapshot), `.invalidArgument` (an ambiguous prefix),
    ///   or the error of a damaged snapshot or index.
    public func snapshot(_ id: String) throws -> SnapshotReader {
        let held = try acquire(.shared)
        do {
            let name = try resolve(id)
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

    /// Every snapshot's id and manifest, in name order.
    /// - Parameter headerOnly: Whether to read only each snapshot's header (no file list).
    func manifests(headerOnly: Bool = false) throws -> [(String, SnapshotManifest)] {
        try BackupRepository.names(in: snapshotFolder).map {
            ($0, try SnapshotManifest.read($0, in: snapshotFolder, keys: keys, headerOnly: headerOnly))
        }
    }

    /// The latest snapshot of `host` with its files, found by reading only the other snapshots' headers.
    func latest(of host: String) throws -> (String, SnapshotManifest)? {
        guard
            let (id, _) = try manifests(headerOnly: true).filter({ $0.1.host == host }).max(by: {
                $0.1.time < $1.1.time
            })
        else { return nil }
        return (id, try SnapshotManifest.read(id, in: snapshotFolder, keys: keys))
    }
}
