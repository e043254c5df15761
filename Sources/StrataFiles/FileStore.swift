public import Foundation
package import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file store addressed by relative paths, over a ``FileEngine`` that holds the bytes: a folder of the local disk
/// (`PosixFileEngine`, module `StrataLocalFiles`, which declares `init(paths:configuration:)`) or an object store.
///
/// ```swift
/// let files = try FileStore(paths: paths)
/// try files.write(pdfData, to: "exports/2026/report.pdf")          // atomic replace, durable
/// let report = try files.read("exports/2026/report.pdf")
/// try files.read("recordings/long.wav") { chunk in upload(chunk) }  // streamed, flat memory
/// let header = try files.read("recordings/long.wav", range: 0..<44) // a ranged read
/// let archive = try files.exportZip(["exports", "recordings"], to: "/tmp/backup.zip")
/// ```
///
/// The store checks every key (a relative path that cannot leave the store: no `..`, no absolute path, no NUL, no
/// component under the reserved prefix `.strata-`), streams, sniffs content types, exports and imports archives and
/// keeps cache areas, the same on every engine; the engine keeps its promises about atomic replacement, locking and
/// recorded checksums (see ``FileEngine``). What only a local folder can do — ``path(for:creatingParents:)``,
/// captures for backups — is asked of the engine (``LocalFileEngine``,
/// ``/StrataCore/TierCapturing``), and is refused with `.notBuiltIn` on an engine that cannot.
public final class FileStore: Sendable {
    /// The engine that holds the files.
    public let engine: any FileEngine
    /// Durability, lock timeout and chunk size.
    public let configuration: FilesConfiguration
    /// How the store's changes keep its root's catalog true.
    let placement: TierPlacement

    /// Opens a file store over `engine`.
    ///
    /// A store over an engine of its own is on no store root: no catalog records its changes (but `Storage`'s,
    /// which gives it its catalog), and none refuses them.
    /// - Parameters:
    ///   - engine: Where the files live.
    ///   - configuration: The store's chunk size (the engine has its own durability and timeouts).
    public init(engine: any FileEngine, configuration: FilesConfiguration = FilesConfiguration()) {
        self.engine = engine
        self.configuration = configuration
        self.placement = TierPlacement(.files, store: "", ledger: configuration.placement)
    }

    /// Opens a store on `engine` whose changes keep a store root's catalog true through `placement`: what the
    /// initializers of an engine on a store root call.
    package init(engine: any FileEngine, configuration: FilesConfiguration, placement: TierPlacement) {
        self.engine = engine
        self.configuration = configuration
        self.placement = placement
    }

    /// Refuses a key that could leave the store (see ``/StrataCore/StoragePaths/validateKey(_:)``).
    func check(_ key: String) throws {
        try StoragePaths.validateKey(key, for: .files)
    }

    // MARK: Writing

    /// Writes `data` to `key`, replacing any file there atomically.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidKey` or `.symbolicLink` for a refused key, `.lockTimeout`, or
    ///   an I/O error (`.noSpace`, ...) — the previous file is then unchanged.
    public func write(_ data: Data, to key: String) throws {
        try write(to: key) { writer in try writer.write(data) }
    }

    /// Writes a file streamed from an open file handle, from its current offset to its end, through one reused
    /// buffer of ``FilesConfiguration/chunkSize`` (memory stays flat).
    public func write(to key: String, from handle: FileHandle) throws {
        try write(to: key) { writer in
            try writer.write(
                contentsOf: FileDescriptor(rawValue: handle.fileDescriptor), chunkSize: configuration.chunkSize)
        }
    }

    /// Writes a file with a ``FileWriter`` that `body` feeds; nothing replaces the old file unless `body` returns.
    public func write(to key: String, _ body: (inout FileWriter) throws -> Void) throws {
        try check(key)
        try placement.change(setting: [key]) { _, _ in try engine.write(key, body) }
    }

    /// Reads, transforms and replaces a file atomically across processes: no other writer of the key changes it
    /// between the read and the replace (the POSIX engine holds the file's lock throughout).
    /// - Parameters:
    ///   - key: The file's key.
    ///   - transform: Gets the current content (`nil` when absent) and returns the new one. An engine may call it
    ///     more than once (an optimistic engine retries when another writer won).
    public func update(_ key: String, _ transform: (Data?) throws -> Data) throws {
        try check(key)
        try placement.change(setting: [key]) { _, _ in try engine.update(key, transform) }
    }

    /// Appends `data` to a file (creating it), atomically against other writers, keeping its checksum current.
    public func append(_ data: Data, to key: String) throws {
        try check(key)
        try placement.change(setting: [key]) { _, _ in try engine.append(data, to: key) }
    }

    // MARK: Reading

    /// The whole content of a file.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file, `.symbolicLink`, or an I/O error.
    public func read(_ key: String) throws -> Data {
        guard let data = try readIfPresent(key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return data
    }

    /// The content of a file, or `nil` when there is none.
    public func readIfPresent(_ key: String) throws -> Data? {
        try check(key)
        return try engine.read(key)
    }

    /// The bytes of `range` in a file (cut at the file's end).
    ///
    /// ```swift
    /// let header = try files.read("recordings/long.wav", range: 0..<44)
    /// ```
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file, `.invalidArgument` for a range
    ///   that starts before 0, or an I/O error.
    public func read(_ key: String, range: Range<Int64>) throws -> Data {
        var data = Data()
        try forEachChunk(of: key, range: range) { data.append(contentsOf: $0) }
        return data
    }

    /// Streams a file to `body` in chunks of ``FilesConfiguration/chunkSize`` (memory stays flat whatever the
    /// size); every chunk comes from one version of the file, even if a writer replaces it meanwhile.
    ///
    /// On the POSIX engine each chunk is read straight into the memory of the `Data` handed out (no copy); `body`
    /// may keep it.
    /// - Returns: The number of bytes read.
    @discardableResult
    public func read(_ key: String, chunks body: (Data) throws -> Void) throws -> Int {
        try check(key)
        let chunkSize = max(configuration.chunkSize, 1)
        if let engine = engine as? any LocalFastPaths {
            return try engine.read(key, chunkSize: chunkSize, chunks: body)
        }
        return try engine.read(key, range: nil, chunkSize: chunkSize) { try body(Data($0)) }
    }

    /// Streams a file, or the bytes of `range` in it, to `body` through one buffer of
    /// ``FilesConfiguration/chunkSize`` reused for every chunk: the fastest way to read a file, for a consumer that
    /// does not keep the bytes.
    ///
    /// - Parameters:
    ///   - key: The file to read.
    ///   - range: The bytes to read (cut at the file's end), or `nil` for all of them.
    ///   - body: Gets each chunk; the memory is valid only until it returns.
    /// - Returns: The number of bytes read.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file, `.invalidArgument` for a range
    ///   that starts before 0, or an I/O error.
    @discardableResult
    public func forEachChunk(
        of key: String, range: Range<Int64>? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        try check(key)
        if let range, range.lowerBound < 0 {
            throw StorageError(
                .invalidArgument, "a range cannot start before the file's first byte", tier: .files, key: key,
                recovery: "Pass a range from 0 on")
        }
        return try engine.read(key, range: range, chunkSize: max(configuration.chunkSize, 1), body)
    }

    /// A file's chunks as an async sequence, read on a task of its own while the sequence is iterated.
    public func chunks(of key: String) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task.detached { [self] in
                do {
                    try read(key) { chunk in
                        try Task.checkCancellation()
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Managing

    /// Whether a file exists under `key`.
    public func exists(_ key: String) throws -> Bool {
        try check(key)
        return try engine.exists(key)
    }

    /// Deletes a file.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try check(key)
        return try placement.change(setting: [], removing: [key]) { _, _ in try engine.delete(key) }
    }

    /// Deletes a file and every copy of its content the engine keeps (``FileEngine/deleteSecurely(_:)``): on the
    /// POSIX engine its bytes are overwritten with zeros and forced to disk first, so that neither the file's blocks
    /// nor another name of the same file keeps them (see `PosixFileEngine.deleteSecurely(_:)`); on an object store,
    /// every version the server keeps is removed.
    ///
    /// `Storage` calls it to remove the plaintext copy of a value that became a credential.
    /// - Returns: Whether there was a file.
    /// - Throws: ``/StrataCore/StorageError`` when the file cannot be erased; on the POSIX engine it is kept then.
    @discardableResult
    public func deleteSecurely(_ key: String) throws -> Bool {
        try check(key)
        return try placement.change(setting: [], removing: [key]) { _, _ in try engine.deleteSecurely(key) }
    }

    /// Moves a file, replacing any file at the destination (atomically on the POSIX engine; see the engine's
    /// ``FileEngine/concurrencyGuarantee``). Moving a file onto itself does nothing.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file at `source`, or what a write throws.
    public func move(_ source: String, to destination: String) throws {
        try check(source)
        try check(destination)
        guard ExactString(source) != ExactString(destination) else { return try engine.move(source, to: destination) }
        try placement.change(setting: [destination], removing: [source]) { _, _ in
            try engine.move(source, to: destination)
        }
    }

    /// Copies a file (streamed, or server-side where the engine can), replacing any file at the destination
    /// atomically. Copying a file onto itself does nothing.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file at `source`, or what a write throws.
    public func copy(_ source: String, to destination: String) throws {
        try check(source)
        try check(destination)
        try placement.change(setting: [destination]) { _, _ in try engine.copy(source, to: destination) }
    }

    /// Every file key that starts with `prefix`, sorted by their UTF-8 bytes.
    ///
    /// A prefix is a plain string prefix, as in `Storage.keys(prefix:)`, S3 and the CLI: `photos` matches
    /// the file `photos`, `photos/a.jpg` and `photos-old/b.jpg`; end it with `/` for one folder's files (`photos/`).
    /// `""` lists every file.
    /// - Parameters:
    ///   - prefix: The start of the keys.
    ///   - recursive: `false` for only the files directly in the folder the prefix ends in (`photos/a.jpg` for
    ///     `photos/`, not `photos/2026/b.jpg`). The default is `true`.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidKey` for a prefix whose folder part is no key (`../`), or
    ///   the engine's error.
    public func list(prefix: String = "", recursive: Bool = true) throws -> [String] {
        try engine.list(prefix: folderKey(prefix), recursive: recursive).filter { $0.utf8.starts(with: prefix.utf8) }
    }

    /// Size, dates, content type and recorded checksum of a file, or `nil` when there is none.
    public func metadata(_ key: String) throws -> FileMetadata? {
        try check(key)
        return try engine.metadata(key)
    }

    /// Recomputes the CRC-32 of every file whose key starts with `prefix` (the rule of ``list(prefix:recursive:)``)
    /// and compares it with what was recorded at write time.
    /// - Returns: The files that do not match (and those with nothing recorded); empty when all is well.
    public func verify(prefix: String = "") throws -> [FileProblem] {
        try engine.verify(prefix: folderKey(prefix)).filter { $0.key.utf8.starts(with: prefix.utf8) }
    }

    /// The folder a prefix's keys are listed from, as the engine takes it: the prefix up to its last `/` (`photos`
    /// for `photos/` and `photos/ab`, `""` for `photos`), checked.
    func folderKey(_ prefix: String) throws -> String {
        let folder = ImportPlan.parents(of: prefix).last ?? ""
        if !folder.isEmpty { try check(folder) }
        return folder
    }

    /// Removes what interrupted writes and imports left behind (temporary files, staging folders, unfinished
    /// uploads) started more than `age` seconds ago; never a file a reader can see.
    /// - Returns: How many leftovers were removed.
    @discardableResult
    public func removeLeftovers(olderThan age: TimeInterval = 24 * 3600) throws -> Int {
        try engine.removeLeftovers(olderThan: age)
    }
}
