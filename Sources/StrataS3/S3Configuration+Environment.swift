public import Foundation
public import StrataCore

extension S3Configuration {
    /// Creates a configuration from an `s3://bucket/prefix` URL, taking what is not given explicitly from the
    /// standard variables: `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, `AWS_REGION` or `AWS_DEFAULT_REGION`,
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    ///
    /// ```swift
    /// let configuration = try S3Configuration(url: "s3://media/exports/")
    /// ```
    /// - Parameters:
    ///   - url: `s3://bucket` or `s3://bucket/prefix` (the prefix is a folder: `/` is added when missing).
    ///   - endpoint: The server; nil to read it from the environment (or AWS when unset there too).
    ///   - region: The signing region; nil to read it from the environment (`us-east-1` when unset).
    ///   - credentials: The access key pair; nil to read it from the environment.
    ///   - environment: The variables to read. The default is the process environment.
    /// - Throws: `StorageError` `.invalidArgument` for a URL that is not `s3://bucket[/prefix]` (or that carries
    ///   credentials, which are refused and never echoed), `.authenticationFailed` when no credentials are given or
    ///   set.
    public init(
        url: String, endpoint: URL? = nil, region: String? = nil, credentials: S3Credentials? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StorageError) {
        guard url.lowercased().hasPrefix("s3://") else {
            throw Self.malformed("an S3 location must be an s3://bucket/prefix URL", part: "scheme")
        }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard !bucket.contains("@"), !bucket.contains(":") else {
            // Never repeat the URL: it may hold a key pair.
            throw Self.malformed(
                "an s3:// URL cannot carry credentials or a port", part: "bucket",
                recovery: "Pass credentials through AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or explicitly, and the "
                    + "server through AWS_ENDPOINT_URL")
        }
        guard Self.isBucketName(bucket) else {
            throw Self.malformed(
                "the bucket of an s3:// URL is 1 to 255 letters, digits, '.', '-' or '_'", part: "bucket",
                recovery: "Write it as s3://bucket or s3://bucket/prefix")
        }
        // `s3://media/exports` and `s3://media/exports/` both mean the folder `exports/`.
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        let components = prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
            !prefix.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0 == "?" || $0 == "#"
            })
        else {
            throw Self.malformed(
                "the prefix of an s3:// URL is folder names joined by '/', none empty, '.' or '..', without control "
                    + "characters, '?' or '#'", part: "prefix", recovery: "Write it as s3://bucket/folder/subfolder")
        }
        func variable(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        var server = endpoint
        if server == nil, let text = variable("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL") {
            guard let parsed = URL(string: text) else {
                throw Self.malformed(
                    "AWS_ENDPOINT_URL is not a URL", part: "endpoint", recovery: "Set it to http(s)://host[:port]")
            }
            server = parsed
        }
        let keys: S3Credentials
        if let credentials {
            keys = credentials
        } else if let id = variable("AWS_ACCESS_KEY_ID"), let secret = variable("AWS_SECRET_ACCESS_KEY") {
            keys = S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: variable("AWS_SESSION_TOKEN"))
        } else {
            var error = StorageError(
                .authenticationFailed, "no S3 credentials were given", tier: .files,
                recovery: "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass S3Credentials")
            error.attribute = "credentials"
            throw error
        }
        try self.init(
            bucket: bucket, prefix: prefix, endpoint: server,
            region: region ?? variable("AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1", credentials: keys)
    }

    /// Whether `name` can be a bucket: 1 to 255 ASCII letters, digits, `.`, `-` or `_` (S3's rules today are
    /// stricter, 3 to 63 characters in lower case; older buckets and other servers allow these).
    static func isBucketName(_ name: String) -> Bool {
        (1...255).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39)
                    || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// The error for a malformed part of an `s3://` URL (`scheme`, `bucket`, `prefix`, `endpoint`), named in
    /// ``/StrataCore/StorageError/attribute``. The URL itself is never repeated: it may hold a key pair.
    static func malformed(_ message: String, part: String, recovery: String? = nil) -> StorageError {
        var error = StorageError(
            .invalidArgument, message, tier: .files,
            recovery: recovery ?? "Write it as s3://bucket or s3://bucket/prefix")
        error.attribute = part
        return error
    }
}
