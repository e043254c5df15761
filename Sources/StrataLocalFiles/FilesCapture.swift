public import StrataCore
import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steps of a files tier's capture (``/StrataCore/TierCapture``): the bulk of a store's bytes is copied before
/// the store's writers are held, and only what changed meanwhile while they are.
///
/// Ahead (no catalog lock): every file, each under its own shared lock, noting its identity (device, inode, size,
/// modification and change times). At the instant (``pin(into:)``, every catalog stripe held): the tier is listed
/// again and each file `stat`ed — no lock, no read. A file whose identity is unchanged is the one copied ahead (a
/// writer replaces a file by rename(2), a new inode, or appends to it, a new size and change time; a writer of the
/// tier's own API that holds the file's lock and has not yet changed it leaves the copy a state that existed). A
/// changed or new file is copied again under its shared lock; a file copied ahead that is gone (deleted, or moved
/// to another tier) or changed is named in ``/StrataCore/CaptureReport/withdrawnPaths``, so a restore leaves that
/// first copy out. The files tier in the capture is thus the tier at the instant, for every write through a
/// `Storage`.
public final class FilesCapture: TierCapture {
    /// What a file was when it was copied ahead.
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64

        init(_ info: stat) {
            #if canImport(Darwin)
                let (modification, change) = (info.st_mtimespec, info.st_ctimespec)
            #else
                let (modification, change) = (info.st_mtim, info.st_ctim)
            #endif
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(modification.tv_sec) * 1_000_000_000 + Int64(modification.tv_nsec)
            changed = Int64(change.tv_sec) * 1_000_000_000 + Int64(change.tv_nsec)
        }
    }

    private let store: PosixFileEngine
    private let relative: String
    private var copied: [ExactString: Identity] = [:]
    private var report = CaptureReport()

    /// Copies every file of `store` into `sink` ahead of the instant, each under its shared lock.
    init(_ store: PosixFileEngine, into sink: any CaptureSink, root: String) throws {
        self.store = store
        relative = try CapturedFile.relativePath(store.directory, root: root, tier: .files)
        for key in try store.list(prefix: "", recursive: true) {
            if let identity = try copy(key, into: sink) { copied[ExactString(key)] = identity }
        }
    }

    /// Copies what changed since the files were copied ahead, and withdraws the copies that are no longer current.
    public func pin(into sink: any CaptureSink) throws -> CaptureReport {
        var current = Set<ExactString>()
        for key in try store.list(prefix: "", recursive: true) {
            current.insert(ExactString(key))
            let earlier = copied[ExactString(key)]
            if let earlier, let (folder, name) = try store.parent(of: key),
                let info = try? folder.status(of: name), Identity(info) == earlier
            {
                continue
            }
            if earlier != nil { report.withdrawnPaths.append(path(of: key)) }
            _ = try copy(key, into: sink)
        }
        for key in copied.keys where !current.contains(key) { report.withdrawnPaths.append(path(of: key.string)) }
        report.withdrawnPaths.sort()
        return report
    }

    /// Copies nothing more: the files were copied ahead and at the instant.
    public func finish(into sink: any CaptureSink) throws -> CaptureReport { CaptureReport() }

    private func path(of key: String) -> String { relative + "/" + key }

    /// Copies one file under its shared lock, with its checksum attribute.
    /// - Returns: Its identity as copied, or `nil` when it is gone.
    private func copy(_ key: String, into sink: any CaptureSink) throws -> Identity? {
        try store.withLock(key, .shared) { () -> Identity? in
            // Gone since the listing: it was deleted before this point of the capture.
            guard let (folder, name) = try store.parent(of: key),
                let captured = try sink.add(
                    name, in: folder, path: path(of: key), tier: .files,
                    extendedAttributes: { fd in
                        guard let value = (try? Sys.attribute(fd, PosixFileEngine.integrityAttribute)) ?? nil else {
                            return [:]
                        }
                        return [PosixFileEngine.integrityAttribute: value]
                    })
            else { return nil }
            report.count(captured)
            // Still under the lock: the file is the one just copied. (Unknown, it is copied again at the instant:
            // an all-zero identity matches no file.)
            return Identity(((try? folder.status(of: name)) ?? nil) ?? stat())
        }
    }
}
