public import StrataCore

// A capture of the files tier: every file, each read under its shared lock (writers replace or append under the
// exclusive one), with its checksum attribute and its real modification time. Lock files, staging and
// temporaries (names under the reserved prefix) are not captured.
extension FileStore: TierCapturing {
    /// Copies every file of the tier into `sink`, each under its shared lock, with its extended attributes.
    /// - Returns: The files copied (files leaves nothing out).
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` when a writer holds a file's lock too long, or an I/O
    ///   error.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        let relative = try CapturedFile.relativePath(directory, root: root, tier: .files)
        var report = CaptureReport()
        for key in try list() {
            try withLock(key, .shared) {
                // Gone since the listing: it was deleted before this point of the capture.
                guard let (folder, name) = try parent(of: key) else { return }
                let captured = try sink.add(name, in: folder, path: relative + "/" + key, tier: .files) { fd in
                    guard let value = (try? Sys.attribute(fd, Self.integrityAttribute)) ?? nil else { return [:] }
                    return [Self.integrityAttribute: value]
                }
                if let captured { report.count(captured) }
            }
        }
        return report
    }
}
