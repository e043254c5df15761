public import Foundation
public import StrataCore

/// Where a ``FileStore`` keeps its bytes: a folder on a local disk (the built-in POSIX engine), an S3-compatible
/// bucket (`S3FileEngine` in the `StrataS3` module), or your own.
///
/// The store keeps what is the same on every engine — key validation, content types, streaming helpers, the zip
/// and gzip exports and the safe imports, cache areas, the ``/StrataCore/StorageBackend`` face — and asks its
/// engine to hold bytes. Every key an engine receives has passed the store's checks
/// (`StoragePaths.validateKey(_:for:)`): a relative path of `/`-separated components, none empty,
/// `.` or `..`, none starting with the reserved prefix `.strata-`. A prefix is such a path or `""`.
///
/// Every engine keeps these promises; the shared test bodies in `StrataFilesTests` check them on each engine:
/// - A write replaces the whole file or nothing. A reader sees the old content or the new one, never a mix; a
///   write that throws (or whose body throws) leaves the old file as it was and nothing new visible.
/// - ``update(_:_:)`` is atomic against every other writer of the key through the same engine, in any process.
/// - Each file's CRC-32 and size are recorded when it is written, returned by ``metadata(_:)`` and checked by
///   ``verify(prefix:)``.
/// - Errors are ``/StrataCore/StorageError``s with tier `.files` and the key; `.notFound` for a missing file.
public protocol FileEngine: Sendable {
    /// A short name, used as the backend's name in a ``/StrataCore/BackendRegistry`` (`filesystem`, `s3`).
    var name: String { get }
    /// Where the files live, for errors and display: a folder path, or a URL without credentials.
    var location: String { get }
    /// What the engine guarantees about concurrent use, in one sentence: what the store reports as
    /// ``/StrataCore/StorageBackend/concurrencyGuarantee``.
    var concurrencyGuarantee: String { get }
    /// How far a write goes before it returns.
    var durability: Durability { get }
    /// Where the engine keeps its data (folders, a server).
    var layout: [StorageLayoutEntry] { get }

    // MARK: Writing

    /// Replaces the file `key` (creating it) with what `body` writes through the ``FileWriter`` it is given,
    /// and records the writer's CRC-32 and size with it. Nothing becomes visible unless `body` returns; if
    /// `body` or the engine throws, the old file is unchanged and nothing partial remains visible.
    func write(_ key: String, _ body: (inout FileWriter) throws -> Void) throws
    /// Reads, transforms and replaces a file atomically: no other writer of `key` (in any process) changes it
    /// between the read and the replace. `transform` gets `nil` when there is no file; the engine may call it
    /// more than once (an optimistic engine retries when another writer won).
    func update(_ key: String, _ transform: (Data?) throws -> Data) throws
    /// Appends `data` to a file (creating it), keeping its recorded checksum current. Atomic like ``update(_:_:)``.
    func append(_ data: Data, to key: String) throws

    // MARK: Reading

    /// The whole content of a file, or `nil` when there is none.
    func read(_ key: String) throws -> Data?
    /// Streams a file, or the bytes of `range` in it, to `body` in chunks of at most `chunkSize` bytes. Every
    /// chunk comes from one version of the file, even if a writer replaces it meanwhile (a shared lock, a pinned
    /// ETag). A range reaching past the end is cut at the end.
    /// - Returns: The number of bytes handed to `body`.
    /// - Throws: `.notFound` when there is no file.
    func read(
        _ key: String, range: Range<Int64>?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int
    /// Opens a file for a reader that pulls its bytes in order (the exports' compressors), and calls `body` with
    /// it. Every byte comes from one version of the file, or the reader throws `.conflict`. An engine that keeps a
    /// file open (the POSIX engine, under the file's shared lock) implements it; others get the default, ranged
    /// reads checked against the recorded size and CRC-32 (`FileEngine+Reader.swift`).
    /// - Throws: `.notFound` when there is no file, or what `body` throws.
    func withReader<T>(_ key: String, _ body: (FileReader) throws -> T) throws -> T

    // MARK: Managing

    /// Whether a file exists under `key`.
    func exists(_ key: String) throws -> Bool
    /// Deletes a file. Returns whether there was one.
    func delete(_ key: String) throws -> Bool
    /// Deletes a file and every copy of its content the engine keeps, so that nothing the engine offers can read it
    /// back: what `Storage` does to the copy of a value that became a credential. Each engine documents how far
    /// that reaches below it (the POSIX engine overwrites the file's blocks; an object store removes every version
    /// it keeps, but cannot overwrite its media). An engine that cannot erase a file throws rather than delete it
    /// plainly.
    /// - Returns: Whether there was a file.
    /// - Throws: `StorageError` when the file cannot be erased; what was erased stays erased, and calling it again
    ///   finishes the job.
    func deleteSecurely(_ key: String) throws -> Bool
    /// Moves a file, replacing any file at the destination (atomically where the engine can; see its
    /// ``concurrencyGuarantee``). Moving a file onto itself does nothing.
    /// - Throws: `.notFound` when there is no file at `source`.
    func move(_ source: String, to destination: String) throws
    /// Copies a file (server-side where the engine can), replacing any file at the destination atomically.
    /// - Throws: `.notFound` when there is no file at `source`.
    func copy(_ source: String, to destination: String) throws
    /// Every file key under `prefix` (a folder key, or `""` for all), sorted by their bytes; only the direct
    /// children of `prefix` unless `recursive`.
    func list(prefix: String, recursive: Bool) throws -> [String]
    /// Size, dates, content type and recorded checksum of a file, or `nil` when there is none.
    func metadata(_ key: String) throws -> FileMetadata?
    /// Recomputes the checksum of every file under `prefix` and compares it with the recorded one.
    /// - Returns: The files that do not match, and those with nothing recorded; empty when all is well.
    func verify(prefix: String) throws -> [FileProblem]
    /// Removes what interrupted writes left behind (temporary files, unfinished multipart uploads) that was
    /// started more than `age` seconds ago, never a file a reader can see.
    /// - Returns: How many leftovers were removed.
    func removeLeftovers(olderThan age: TimeInterval) throws -> Int

    // MARK: Cache areas

    /// Records that a file was used now (a cache area's hit), for the least-recently-used order that
    /// ``metadata(_:)`` reports as ``FileMetadata/accessDate``. Best effort: a failure is ignored. The default
    /// records nothing: an engine without it evicts its cache areas in the order of writes.
    func markUsed(_ key: String)
}

extension FileEngine {
    /// Records nothing: the access date stays the modification date.
    public func markUsed(_ key: String) {}
}
