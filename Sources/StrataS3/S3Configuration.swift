public import Foundation
public import StrataCore

/// Where the S3 client sends its requests and how it behaves: the bucket and key prefix, the endpoint, the
/// region, the credentials, timeouts, retries and multipart sizes.
///
/// Build one from an `s3://bucket/prefix` URL and the standard `AWS_*` variables:
///
/// ```swift
/// let configuration = try S3Configuration(url: "s3://media/exports/")
/// let client = try S3Client(configuration)
/// ```
///
/// Only path-style addressing is used (`http://endpoint/bucket/key`), which every S3-compatible server speaks.
public struct S3Configuration: Sendable, Hashable, CustomStringConvertible {
    /// The bucket.
    public var bucket: String
    /// The prefix every key is stored under (`exports/` for `s3://media/exports/`). The default is empty.
    public var prefix: String
    /// The server, as `scheme://host[:port]`. The default is `https://s3.<region>.amazonaws.com`.
    public var endpoint: URL
    /// The signing region. The default is `us-east-1`.
    public var region: String
    /// The access key pair.
    public var credentials: S3Credentials
    /// The longest one request may take, from connecting to the last byte, in seconds. The default is 600.
    public var requestTimeout: Double = 600
    /// The longest connecting may take, in seconds. The default is 10.
    public var connectTimeout: Double = 10
    /// A transfer that moves no byte for this many seconds is abandoned (a hung server). The default is 30.
    public var stallTimeout: Int = 30
    /// How many times a request is tried before its error is thrown (5xx, `SlowDown`, a lost connection). The
    /// default is 5.
    public var maxAttempts: Int = 5
    /// The first retry's delay ceiling, in seconds; it doubles per retry up to ``maxRetryDelay`` and each delay is
    /// drawn uniformly below its ceiling (full jitter). The default is 0.1.
    public var baseRetryDelay: Double = 0.1
    /// The largest retry delay, in seconds. The default is 5.
    public var maxRetryDelay: Double = 5
    /// The size of each part of a multipart upload (at least 5 MiB, S3's minimum). The default is 16 MiB.
    public var partSize: Int64 = 16 << 20
    /// How many parts are uploaded at once. The default is 4.
    public var concurrency: Int = 4
    /// The most memory a streamed write (`S3FileEngine`) holds in parts, the one being filled and those being
    /// uploaded: it caps the part size at `writeBufferLimit / (concurrency + 1)` (5 MiB at least) and the parts
    /// in flight at what fits. The default is 20 MiB: parts of 5 MiB, 3 going up while the fourth fills.
    public var writeBufferLimit: Int64 = 20 << 20
    /// The largest object one server-side copy (CopyObject) may copy, at least 5 MiB: a larger one is copied part
    /// by part (UploadPartCopy, parts of this size, as many as 10,000). The default is 5 GiB, S3's limit.
    public var copyLimit: Int64 = 5 << 30

    /// Creates a configuration from explicit values.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - prefix: The prefix every key is stored under.
    ///   - endpoint: The server (`http://127.0.0.1:7480`); nil for AWS in `region`.
    ///   - region: The signing region.
    ///   - credentials: The access key pair.
    /// - Throws: `StorageError` `.invalidArgument` for an empty bucket or an endpoint that is not `http(s)://host`.
    public init(
        bucket: String, prefix: String = "", endpoint: URL? = nil, region: String = "us-east-1",
        credentials: S3Credentials
    ) throws(StorageError) {
        guard !bucket.isEmpty, !bucket.contains("/") else {
            throw Self.malformed(
                "an S3 bucket name cannot be empty or contain '/'", part: "bucket",
                recovery: "Name the bucket as in s3://bucket/prefix")
        }
        let server = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!
        guard let scheme = server.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = server.host, !host.isEmpty, server.user == nil, server.password == nil,
            server.path.isEmpty || server.path == "/", server.query == nil
        else {
            throw Self.malformed(
                "the S3 endpoint must be http(s)://host[:port], without a path or user", part: "endpoint",
                recovery: "Set AWS_ENDPOINT_URL to the server, for example http://127.0.0.1:7480")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = server
        self.region = region
        self.credentials = credentials
    }

    /// `s3://bucket/prefix at endpoint (region)`; the credentials are never part of it.
    public var description: String {
        "s3://\(bucket)/\(prefix) at \(endpoint.absoluteString) (\(region))"
    }

    /// The `Host` header: the endpoint's host, with its port when it names one.
    var hostHeader: String {
        let host = endpoint.host ?? ""
        let bracketed = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return endpoint.port.map { "\(bracketed):\($0)" } ?? bracketed
    }
}
