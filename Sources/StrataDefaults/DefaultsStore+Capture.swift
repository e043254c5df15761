public import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A capture of the defaults tier: every suite file of the root's `defaults/` folder, each read under its suite's
// shared lock. Writers replace a suite file only by rename(2) under that lock held exclusively, so the file read
// is one writer's whole result. Lock files are not captured (a suite makes its lock on first use), nor are
// temporaries or files moved aside as unreadable.
extension DefaultsStore: TierCapturing {
    /// Copies every suite file of the store into `sink`, after writing this process's pending changes.
    ///
    /// A change another process coalesced and has not flushed yet is not in the file, so not in the capture: it is
    /// in the capture when that process flushed it (``flush()``, or its flush delay passed) before the capture
    /// began.
    /// - Returns: The files copied (defaults leaves nothing out).
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` when a writer holds a suite's lock too long, or an I/O
    ///   error.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try flush()
        let folder = try Self.suiteFolder(paths)
        let relative = try CapturedFile.relativePath(folder.path, root: root, tier: .defaults)
        let names = try folder.entries(of: .defaults)
        var report = CaptureReport()
        for name in names.sorted()
        where name.hasSuffix(".plist") && !name.hasPrefix(StoragePaths.reservedPrefix) && name != ".plist" {
            let lock = FileLock(in: folder, name: name + ".lock", permissions: FilePermissions(paths.filePermissions))
            try lock.withLock(.shared, timeout: configuration.lockTimeout) {
                if let file = try sink.add(name, in: folder, path: relative + "/" + name, tier: .defaults) {
                    report.count(file)
                }
            }
        }
        return report
    }
}
