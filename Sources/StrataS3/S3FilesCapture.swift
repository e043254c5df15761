import Foundation
public import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steps of a capture of the files tier on S3 (``/StrataCore/TierCapture``), laid out as the POSIX engine lays
/// its files out under a store root (`files/<key>`), so that a capture restores into a local store as well.
///
/// Ahead (no catalog lock): every object is downloaded (one GET each, from one version) and its entity tag noted.
/// At the instant (``pin(into:)``, every catalog key held): the objects are listed again — no object is read. An
/// object whose entity tag is the one downloaded is that copy (the tag changes with the content); a changed or new
/// one is downloaded again now, and a copy made ahead that is gone or changed is named in
/// ``/StrataCore/CaptureReport/withdrawnPaths``. The tier in the capture is thus the bucket at the instant, for
/// every write through a `Storage`. Objects the store could not have written (reserved names, folder markers) are
/// left out, as the engine's listing leaves them out.
public final class S3FilesCapture: TierCapture {
    private let engine: S3FileEngine
    /// Where the files go in the capture, relative to the store root.
    private let folder: String
    /// The entity tag of each object as it was downloaded.
    private var copied: [ExactString: String] = [:]
    private var report = CaptureReport()

    /// Downloads every object of `engine` into `sink` ahead of the instant.
    init(_ engine: S3FileEngine, into sink: any CaptureSink) throws {
        self.engine = engine
        folder = Tier.files.directoryName
        for object in try objects() {
            if let tag = try copy(object.key, into: sink) { copied[ExactString(object.key)] = tag }
        }
    }

    /// Downloads what changed since the objects were downloaded ahead, and withdraws the copies no longer current.
    public func pin(into sink: any CaptureSink) throws -> CaptureReport {
        var current = Set<ExactString>()
        for object in try objects() {
            let key = ExactString(object.key)
            current.insert(key)
            let earlier = copied[key]
            if earlier == object.etag { continue }
            if earlier != nil { report.withdrawnPaths.append(path(of: object.key)) }
            if let tag = try copy(object.key, into: sink) { copied[key] = tag }
        }
        for key in copied.keys where !current.contains(key) { report.withdrawnPaths.append(path(of: key.string)) }
        report.withdrawnPaths.sort()
        return report
    }

    /// Copies nothing more: the objects were downloaded ahead and at the instant.
    public func finish(into sink: any CaptureSink) throws -> CaptureReport { CaptureReport() }

    private func path(of key: String) -> String { folder + "/" + key }

    /// The objects under the engine's prefix whose keys the store could have written.
    private func objects() throws -> [S3ObjectInfo] {
        try engine.client.list().objects.filter { (try? StoragePaths.validateKey($0.key)) != nil }
    }

    /// Downloads one object into a nameless temporary file and hands it to `sink`, with its modification time.
    /// - Returns: The entity tag of what was downloaded, or `nil` when the object is gone.
    private func copy(_ key: String, into sink: any CaptureSink) throws -> String? {
        let scratch =
            NSTemporaryDirectory() + "/strata-s3-capture-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try Sys.open(scratch, .readWrite, [.create, .exclusive, .noFollow], permissions: 0o600)
            try? Sys.unlink(scratch)
        } catch {
            throw error.storageError("cannot make a temporary file for a capture of the files tier", path: scratch)
        }
        defer { Sys.close(fd) }
        let info: S3ObjectInfo
        do throws(StorageError) {
            info = try engine.client.get(key, to: fd)
        } catch  where error.code == .notFound {
            return nil  // Deleted since the listing: before this point of the capture.
        }
        let modified = (info.lastModified ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970
        let file = CapturedFile(
            path: path(of: key), tier: .files, mode: 0o600, size: info.size,
            modificationTime: CapturedFile.Timespec(
                seconds: Int64(modified.rounded(.down)),
                nanoseconds: Int32((modified - modified.rounded(.down)) * 1e9)))
        try sink.add(file, contentsOf: fd)
        report.count(file)
        return info.etag
    }
}
