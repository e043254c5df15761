import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileStore {
    /// Extracts a zip archive into the store under `prefix`, all or nothing.
    ///
    /// Every entry is checked before anything is stored: names that would leave the destination (`..`, absolute
    /// paths, backslashes, NUL), duplicate names, a file where a folder is needed (in the archive or in the
    /// store), symbolic links, encrypted or unknown methods, sizes, offsets and ratios that no honest archive
    /// has, CRC mismatches and truncations are refused with a typed error naming the entry (in `key`) and the
    /// archive (in `path`). Entries are extracted into a staging area first and moved into place only when all
    /// are good; if a move fails, the files already replaced are put back, so a failed import leaves the store as
    /// it was.
    ///
    /// On the POSIX engine the staging area is a folder of the tier and every step (staging, inspecting, linking,
    /// moving, removing) names one component relative to an open folder, opened from the tier folder down without
    /// following links: a neighbour who swaps a folder for a symbolic link meanwhile makes the import fail with
    /// `.symbolicLink`, never write elsewhere. On any other engine the entries are staged in a local temporary
    /// folder and written through the engine one by one: each file appears whole, but a reader during the commit
    /// may see some of the archive's files imported and others not yet.
    /// - Parameters:
    ///   - archive: The zip file's path.
    ///   - prefix: The folder key the entries go under (`""`: the store's top).
    ///   - limits: What the archive may expand to.
    ///   - options: Progress, and a way to stop before the commit (`.cancelled`, the store unchanged).
    /// - Returns: The keys stored.
    @discardableResult
    public func importZip(
        from archive: String, into prefix: String = "", limits: ImportLimits = ImportLimits(),
        options: ImportOptions = ImportOptions()
    ) throws -> [String] {
        let reader = try ZipReader(path: archive, limits: limits)
        defer { reader.close() }
        let plan = try ImportPlan(entries: try reader.entries(), prefix: prefix, limits: limits, archive: archive)
        let transaction = try beginImport()
        defer { transaction.finish() }
        let newFolders = try checkClashes(
            files: plan.files.map { ($0.key, $0.entry.name) }, folders: plan.folders, archive: archive,
            in: transaction)
        var staged: [(index: Int, key: String)] = []
        var progress = TransferProgress(bytesDone: 0, bytesTotal: plan.files.reduce(0) { $0 + $1.entry.size })
        for (index, (entry, key)) in plan.files.enumerated() {
            progress.currentKey = key
            try options.checkCancelled(archive)
            try transaction.stage(index) { writer in
                _ = try reader.extract(entry) { chunk in
                    try options.checkCancelled(archive)
                    try writer.write(chunk)
                    progress.bytesDone += chunk.count
                    options.progress?(progress)
                }
            }
            staged.append((index, key))
        }
        try options.checkCancelled(archive)
        return try placement.change(setting: staged.map(\.key)) { _, _ in
            try transaction.commit(staged, newFolders: newFolders)
        }
    }

    /// Decompresses a gzip file into the store at `key`, with the same checks as
    /// ``importZip(from:into:limits:options:)``.
    ///
    /// Every member is read (as `gzip -d` does) and checked against its CRC-32 and length; bytes after the last
    /// member are refused as `.corrupt`.
    /// - Parameters:
    ///   - archive: The gzip file's path.
    ///   - key: Where the decompressed file goes.
    ///   - limits: What the file may expand to.
    ///   - options: Progress, and a way to stop before the commit (`.cancelled`, the store unchanged).
    public func importGzip(
        from archive: String, to key: String, limits: ImportLimits = ImportLimits(),
        options: ImportOptions = ImportOptions()
    ) throws {
        try check(key)
        let transaction = try beginImport()
        defer { transaction.finish() }
        let newFolders = try checkClashes(
            files: [(key, key)], folders: ImportPlan.parents(of: key).map { ($0, key) }, archive: archive,
            in: transaction)
        let input: FileDescriptor
        do {
            input = try Sys.open(archive, .readOnly, .noFollow)
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no gzip file here", tier: .files, path: archive)
        } catch {
            throw error.storageError("cannot open the gzip file", tier: .files, path: archive)
        }
        defer { Sys.close(input) }
        let compressedSize = Int((try? Sys.fstat(input))?.st_size ?? 0)
        var progress = TransferProgress(bytesDone: 0, bytesTotal: compressedSize, currentKey: key)
        try transaction.stage(0) { writer in
            var produced = 0
            var buffer = [UInt8](repeating: 0, count: 256 << 10)
            try GzipReader.decompress(
                path: archive,
                read: {
                    let count: Int
                    do throws(Errno) {
                        count = try Sys.read(input, into: &buffer)
                    } catch {
                        throw error.storageError("cannot read the gzip file", tier: .files, key: key, path: archive)
                    }
                    try options.checkCancelled(archive)
                    progress.bytesDone += count
                    options.progress?(progress)
                    return Array(buffer[0..<count])
                },
                sink: { output in
                    produced += output.count
                    try Self.checkExpansion(produced, compressed: compressedSize, limits: limits, path: archive)
                    try writer.write(output)
                })
        }
        try options.checkCancelled(archive)
        _ = try placement.change(setting: [key]) { _, _ in try transaction.commit([(0, key)], newFolders: newFolders) }
    }

    /// Starts an import on the engine: staged in the tier and committed by rename on a local folder, staged in a
    /// local temporary folder and written through the engine on any other.
    private func beginImport() throws -> any ImportTransaction {
        if let engine = engine as? any LocalFastPaths { return try engine.beginImport() }
        return try EngineImport(engine, chunkSize: configuration.chunkSize)
    }

    static func checkExpansion(_ produced: Int, compressed: Int, limits: ImportLimits, path: String) throws {
        if produced > limits.maximumTotalSize {
            throw StorageError(
                .limitExceeded, "the archive expands to more than \(limits.maximumTotalSize) bytes", tier: .files,
                path: path)
        }
        if produced > 1 << 20, produced / max(compressed, 1) > limits.maximumRatio {
            throw StorageError(
                .limitExceeded, "the data expands more than \(limits.maximumRatio) times (a decompression bomb?)",
                tier: .files, path: path)
        }
    }

    /// Refuses an import that would put a file where the store has a folder, or need a folder where the store
    /// has a file (at any depth), before anything is extracted.
    /// - Parameters:
    ///   - files: The keys to store, each with the archive entry it comes from.
    ///   - folders: The folders those keys need, parents first, each with the entry that needs it.
    ///   - transaction: The import, which inspects the store.
    /// - Returns: The folders that do not exist yet (parents first): a rollback removes them again.
    func checkClashes(
        files: [(key: String, entry: String)], folders: [(key: String, entry: String)], archive: String,
        in transaction: any ImportTransaction
    ) throws -> [String] {
        func clash(_ entry: String, _ why: String) -> StorageError {
            StorageError(
                .invalidArgument, "an archive entry clashes with the store: \(why)", tier: .files, key: entry,
                path: archive, recovery: "Import under another prefix, or move the store's file or folder first")
        }
        var missing: [String] = []
        var missingKeys: Set<ExactString> = []
        func isUnderMissing(_ key: String) -> Bool {
            ImportPlan.parents(of: key).last.map { missingKeys.contains(ExactString($0)) } ?? false
        }
        for (folder, entry) in folders {
            if isUnderMissing(folder) {
                missing.append(folder)
                missingKeys.insert(ExactString(folder))
                continue
            }
            switch try transaction.kind(of: folder) {
            case nil:
                missing.append(folder)
                missingKeys.insert(ExactString(folder))
            case .folder:
                continue
            default:
                throw clash(entry, "the store has a file where the archive needs a folder")
            }
        }
        for (key, entry) in files where !isUnderMissing(key) {
            if let kind = try transaction.kind(of: key), kind != .file {
                throw clash(entry, "the store has a folder (or another non-file) where the archive has a file")
            }
        }
        return missing
    }
}
