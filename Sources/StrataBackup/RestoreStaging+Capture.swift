import Foundation
package import StrataCore

// A whole capture written into the staging folder (see `Documentation/Backup.md`, "Capture and restore"): its
// description first, which names the files copied ahead of the capture's instant to leave out; then every other file;
// then all made durable, and the configuration made to name only what is under the new root.
extension RestoreStaging {
    /// Writes every file of `source` into the staging folder, but those its description withdraws, makes them durable,
    /// and makes the staged configuration name only what the restore put under the new root.
    /// - Returns: The capture's description (`nil` for a capture made without one), and how many files were written
    ///   besides it.
    /// - Throws: ``/StrataCore/StorageError``: `.corrupt` naming the file for hostile or damaged content, a description
    ///   or configuration that does not decode; `.unsupportedVersion` for a newer capture or configuration; the
    ///   source's errors, or an I/O error.
    package func write(capture source: some CaptureSource) throws -> (description: CaptureDescription?, fileCount: Int)
    {
        let files = source.files
        let describedAt = files.firstIndex { $0.tier == nil && $0.path == CaptureDescription.path }
        var description: CaptureDescription?
        var skipped = Set<Int>()
        if let describedAt {
            try write([files[describedAt]], from: source)
            description = try readDescription()
            skipped = try Self.withdrawnIndices(description?.withdrawn ?? [], in: files)
        }
        // All at once, so that the source reads the next files' content while one is written.
        let restored = files.indices.filter { $0 != describedAt && !skipped.contains($0) }.map { files[$0] }
        try write(restored, from: source)
        try makeDurable()
        try localizeConfiguration()
        return (description, restored.count)
    }

    /// Reads and removes the capture's description written into the staging folder.
    func readDescription() throws -> CaptureDescription {
        defer { remove(CaptureDescription.path) }
        let data = try AtomicFile.read(in: folder, name: CaptureDescription.path, maximumSize: 64 << 20)
        let description: CaptureDescription
        do {
            description = try JSONDecoder().decode(CaptureDescription.self, from: data ?? Data())
        } catch {
            throw StorageError(
                .corrupt, "the capture's description does not decode: \(error)", path: CaptureDescription.path)
        }
        guard description.version <= CaptureDescription.formatVersion else {
            throw StorageError(
                .unsupportedVersion,
                "the capture is of format \(description.version); this Strata reads up to "
                    + "\(CaptureDescription.formatVersion)", path: CaptureDescription.path,
                recovery: "Restore it with a newer Strata")
        }
        return description
    }

    /// The indices in `files` of the first file of each withdrawn path: copies made ahead of the capture's instant
    /// that were no longer current at it.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when a withdrawn path is not in the capture, or twice.
    static func withdrawnIndices(_ withdrawn: [String], in files: [CapturedFile]) throws -> Set<Int> {
        var first: [ExactString: Int] = [:]
        for (index, file) in files.enumerated() where first[ExactString(file.path)] == nil {
            first[ExactString(file.path)] = index
        }
        var indices = Set<Int>()
        for path in withdrawn {
            guard let index = first[ExactString(path)], files[index].tier == .files, indices.insert(index).inserted
            else {
                throw StorageError(
                    .corrupt, "the capture's description withdraws a file it does not hold once", tier: .files,
                    path: path, recovery: "The snapshot is damaged or was made by hand; restore another one")
            }
        }
        return indices
    }

    /// Checks the captured configuration and makes it name only what the restore put under the new root: records in
    /// SQLite (a PostgreSQL export is converted by the caller; a PostgreSQL target is named only once its load is
    /// adopted), files in the folder. A snapshot is data: the servers, URLs and environment variables its
    /// `strata.conf` names are never acted on during a restore, nor named by the restored store.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` or `.unsupportedVersion` (naming `strata.conf` and the line)
    ///   when the captured file does not read as a configuration of this Strata.
    func localizeConfiguration() throws {
        let paths = try StoragePaths(root: path, create: false)
        var configuration: StoreConfiguration
        do {
            guard let captured = try StoreConfiguration.read(from: paths) else { return }
            configuration = captured
        } catch var error as StorageError {
            error.path = StoreConfiguration.fileName
            error.recovery =
                "The snapshot holds a damaged or newer store configuration; restore another snapshot, or "
                + "restore this one with the Strata that made it"
            throw error
        }
        configuration.records.backend = "sqlite"
        configuration.records.url = nil
        configuration.records.urlVariable = nil
        configuration.files = StoreConfiguration.Files()
        try configuration.write(to: paths)
    }
}
