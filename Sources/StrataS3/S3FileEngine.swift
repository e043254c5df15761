public import Foundation
public import StrataCore
public import StrataFiles
import Synchronization

/// The files tier on an S3-compatible object store (AWS S3, Ceph's RADOS Gateway, MinIO, ...): each file is one
/// object under the configuration's bucket and prefix, named by its key.
///
/// ```swift
/// let engine = try S3FileEngine(url: "s3://media/exports/")   // endpoint and keys from AWS_* variables
/// try engine.write("2026/report.pdf") { writer in try writer.write(pdf) }
/// let report = try engine.read("2026/report.pdf")
/// ```
///
/// - Writes are streamed: a body up to the part size goes up in one PUT when it ends; a longer one becomes a
///   multipart upload whose parts go up in parallel while the body is written, memory bounded by
///   ``S3Configuration/writeBufferLimit``. A failed write is aborted: no object, whole or partial, appears.
/// - Each object records its CRC-32 and size in user metadata (`x-amz-meta-strata-crc32`, `-size`): on the PUT,
///   or for a multipart upload (the checksum is known only at the end) by completing it under a staging key that
///   no listing shows, then one server-side copy into place with the metadata: the object is never without it.
/// - ``update(_:_:)`` and ``append(_:to:)`` are compare-and-swap loops on the object's entity tag (`If-Match`,
///   `If-None-Match: *`), tried again after a backoff with jitter when another writer won: no update is lost,
///   whatever the number of processes.
/// - Reads are streamed from one GET; a transfer cut short goes on with `If-Match` on the first answer's tag, so a
///   reader never mixes two versions.
///
/// See `Documentation/S3.md` for the semantics of every operation beside the POSIX engine's.
public final class S3FileEngine: FileEngine {
    /// The client every request goes through.
    public let client: S3Client
    /// The size of the parts of a streamed multipart write (and the largest body written in one PUT).
    public let partSize: Int
    /// How many parts of one streamed write are uploaded at once.
    public let partsInFlight: Int
    /// The part buffers streamed writes have allocated so far, in all: each write allocates at most
    /// ``partsInFlight`` + 1 and reuses them for all its parts.
    public var partBufferAllocations: Int { allocatedPartBuffers.load(ordering: .relaxed) }
    let allocatedPartBuffers = Atomic<Int>(0)
    /// The most part-buffer memory one streamed write has held so far, in bytes: at most
    /// (``partsInFlight`` + 1) × ``partSize``, and within ``S3Configuration/writeBufferLimit``.
    public var largestPartMemory: Int { largestPartMemoryHeld.load(ordering: .relaxed) }
    let largestPartMemoryHeld = Atomic<Int>(0)
    /// How long ``update(_:_:)`` keeps trying when other writers keep winning, in seconds.
    public let contentionTimeout: Double
    /// The uses of files this process made through the engine (``markUsed(_:)``).
    let uses = Mutex(S3UseRecord())
    /// Called as a streamed multipart write reaches each of its steps (``observeWriteSteps(_:)``); nil (the default)
    /// costs a lock per step.
    let writeStepObserver = Mutex<(@Sendable (S3WriteStep) -> Void)?>(nil)

    /// Has `observer` called as each streamed multipart write of this engine reaches each of its steps, on the
    /// writer's thread: for tests that kill a writer there.
    package func observeWriteSteps(_ observer: @escaping @Sendable (S3WriteStep) -> Void) {
        writeStepObserver.withLock { $0 = observer }
    }

    /// Opens the engine on a bucket and prefix.
    /// - Parameters:
    ///   - configuration: The bucket, prefix, endpoint, region, credentials and limits.
    ///   - contentionTimeout: How long an update keeps trying when other writers keep winning. The default is 60
    ///     seconds.
    /// - Throws: `StorageError` `.invalidArgument` for limits that cannot work.
    public init(configuration: S3Configuration, contentionTimeout: Double = 60) throws(StorageError) {
        client = try S3Client(configuration)
        let budget = max(configuration.writeBufferLimit, 5 << 20)
        let mebibyte: Int64 = 1 << 20
        let fitting = budget / Int64(configuration.concurrency + 1) / mebibyte * mebibyte
        partSize = Int(max(5 << 20, min(configuration.partSize, fitting)))
        partsInFlight = max(1, min(configuration.concurrency, Int(budget / Int64(partSize)) - 1))
        self.contentionTimeout = contentionTimeout
    }

    /// Opens the engine on an `s3://bucket/prefix` URL, the rest from the arguments or the standard variables
    /// (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
    ///
    /// ```swift
    /// let engine = try S3FileEngine(url: "s3://media/exports/")
    /// ```
    /// - Throws: `StorageError` `.invalidArgument` for a URL that is not `s3://bucket[/prefix]`,
    ///   `.authenticationFailed` when no credentials are given or set.
    public convenience init(
        url: String, endpoint: URL? = nil, region: String? = nil, credentials: S3Credentials? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StorageError) {
        try self.init(
            configuration: S3Configuration(
                url: url, endpoint: endpoint, region: region, credentials: credentials, environment: environment))
    }

    /// The bucket, prefix, endpoint and region (never the credentials).
    public var configuration: S3Configuration { client.configuration }

    public var name: String { "s3" }

    /// `s3://bucket/prefix at endpoint (region)`: no credentials.
    public var location: String { configuration.description }

    public var concurrencyGuarantee: String {
        "each write replaces the whole object at once, checksum included (a PUT, or one server-side copy of a "
            + "multipart upload completed under a staging key); update and "
            + "append compare and swap on the object's ETag, retried when another writer won, so none is lost across "
            + "processes; move is a server-side copy then a delete, not atomic"
    }

    /// The server stores an object durably before it acknowledges it.
    public var durability: Durability { .durable }

    public var layout: [StorageLayoutEntry] {
        var endpoint = configuration.endpoint.absoluteString
        if endpoint.hasSuffix("/") { endpoint.removeLast() }
        return [
            StorageLayoutEntry(
                .server, "\(endpoint)/\(configuration.bucket)/\(configuration.prefix)",
                role: "objects, one per file (S3 bucket \(configuration.bucket))")
        ]
    }
}
