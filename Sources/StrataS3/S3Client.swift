import Foundation
public import StrataCore
import StrataSystem
import Synchronization

/// A client of an S3-compatible object store (AWS S3, Ceph's RADOS Gateway, MinIO, ...): objects under the
/// configuration's bucket and prefix, written from and read into file descriptors so that memory stays flat for
/// any size.
///
/// ```swift
/// let client = try S3Client(S3Configuration(url: "s3://media/exports/"))
/// let info = try client.put("report.pdf", from: fd, length: size, contentType: "application/pdf")
/// try client.get("report.pdf", to: output)
/// ```
///
/// Requests are signed with AWS Signature Version 4, the body's SHA-256 included (the server refuses a body that
/// does not match it). Connections are reused: the client keeps one libcurl handle per concurrent caller. Every
/// request has a deadline and a stall limit, and a request that fails with a 5xx, `SlowDown` or a lost connection
/// is sent again after a backoff with jitter, up to ``S3Configuration/maxAttempts`` times. Every S3 error is a
/// ``/StrataCore/StorageError`` whose ``/StrataCore/StorageError/code`` says what happened (`.notFound` for
/// `NoSuchKey`, `.authenticationFailed` for `SignatureDoesNotMatch`, ...) with the S3 code, the request id, the HTTP
/// status and the attempts in its ``S3ErrorDetail`` (`error.s3`); no error, log line or description contains the
/// credentials.
///
/// Safe from any number of threads at once.
public final class S3Client: Sendable {
    /// Where the requests go and how they are retried.
    public let configuration: S3Configuration
    let signer: S3Signer
    let retryPolicy: S3RetryPolicy
    private let timeouts: HTTPTimeouts
    /// The `Host` header, worked out once (reading it from the endpoint's URL took more time than signing).
    private let hostHeader: String
    /// Idle handles, each with its open connection; taken by one request at a time and given back after it.
    private let idle = Mutex<[CurlHandle]>([])

    /// Creates a client. Nothing is sent until the first operation.
    /// - Parameter configuration: The bucket, prefix, endpoint, region, credentials and limits.
    /// - Throws: `StorageError` `.invalidArgument` for limits that cannot work (a part or a copy limit smaller than
    ///   5 MiB, no attempts, no concurrency).
    public init(_ configuration: S3Configuration) throws(StorageError) {
        guard configuration.partSize >= 5 << 20, configuration.copyLimit >= 5 << 20, configuration.maxAttempts >= 1,
            configuration.concurrency >= 1, configuration.requestTimeout > 0, configuration.connectTimeout > 0,
            configuration.stallTimeout > 0
        else {
            throw StorageError(
                .invalidArgument, "the S3 configuration's limits cannot work", tier: .files,
                recovery: "Use a part size and a copy limit of at least 5 MiB, at least one attempt, a concurrency of "
                    + "at least one and positive timeouts")
        }
        self.configuration = configuration
        self.hostHeader = configuration.hostHeader
        self.signer = S3Signer(credentials: configuration.credentials, region: configuration.region)
        self.retryPolicy = S3RetryPolicy(
            maxAttempts: configuration.maxAttempts, baseDelay: configuration.baseRetryDelay,
            maxDelay: configuration.maxRetryDelay)
        self.timeouts = HTTPTimeouts(
            totalMilliseconds: Int(configuration.requestTimeout * 1000),
            connectMilliseconds: Int(configuration.connectTimeout * 1000), stallSeconds: configuration.stallTimeout)
    }

    /// The full object key of `key`: the configuration's prefix, then `key`.
    func objectKey(_ key: String) -> String { configuration.prefix + key }

    /// Refuses keys S3 cannot store: empty, or longer than 1,024 bytes once prefixed.
    func checkKey(_ key: String) throws(StorageError) {
        guard !key.isEmpty else {
            throw StorageError(.invalidKey, "an S3 key cannot be empty", tier: .files, key: key)
        }
        guard objectKey(key).utf8.count <= 1024 else {
            throw StorageError(
                .invalidKey, "an S3 key cannot be longer than 1024 bytes (prefix included)", tier: .files, key: key)
        }
    }

    /// The encoded path of a key (or of the bucket for nil): `/bucket/prefix+key`.
    func path(for key: String?) -> String {
        let bucket = "/" + S3Signer.uriEncode(configuration.bucket, keepingSlash: false)
        guard let key else { return bucket }
        return bucket + "/" + S3Signer.uriEncode(objectKey(key), keepingSlash: true)
    }

    /// Sends a request, retrying what may succeed on another try, and returns its 2xx answer.
    /// - Throws: `StorageError` with the S3 code for an error answer, `.connectionFailed` or `.timeout` when no
    ///   answer came within the attempts, or the file's error when the body or the sink failed.
    func send(_ request: S3Request) throws(StorageError) -> S3Response {
        let payloadHash = try payloadHash(of: request)
        let path = path(for: request.key)
        let query = S3Signer.canonicalQuery(request.query)
        var base = configuration.endpoint.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        let url = base + path + (query.isEmpty ? "" : "?" + query)
        let started = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        var resume = S3ReadResumption()
        while true {
            attempt += 1
            let headers = try signer.signedHeaders(
                method: request.method, path: path, query: request.query,
                headers: [("host", hostHeader)] + request.headers + resume.headers(for: request.range),
                payloadHash: payloadHash, date: Date())
            let transfer = HTTPTransfer(body: request.body, sink: request.sink, resumedAt: resume.delivered)
            let failure = withHandle { handle in
                handle.perform(
                    method: request.method, url: url, headers: headers, transfer: transfer, timeouts: timeouts)
            }
            var error: StorageError
            var retryable: Bool
            if let failure {
                error = transportError(failure, request: request)
                retryable = failure.isRetryable && request.isIdempotent
                if request.sink.resumes, (200..<300).contains(transfer.status) {
                    // Bytes already left for the file or the reader: go on from there, pinned to this version.
                    retryable = retryable && resume.record(transfer)
                    if resume.isComplete {
                        return S3Response(
                            status: transfer.status, headers: transfer.headers, body: [], written: resume.delivered,
                            attempts: attempt)
                    }
                }
            } else if (200..<300).contains(transfer.status) {
                return S3Response(
                    status: transfer.status, headers: transfer.headers, body: transfer.received,
                    written: resume.delivered + transfer.written, attempts: attempt)
            } else {
                error = answerError(
                    status: transfer.status, headers: transfer.headers, body: transfer.received, request: request)
                retryable =
                    S3ErrorMapping.entry(serviceCode: error.s3?.serviceCode, status: transfer.status).isRetryable
                if resume.pinnedTag != nil, error.s3?.serviceCode == "PreconditionFailed" || transfer.status == 412 {
                    error.message = "S3 \(request.operation) was interrupted and the object was replaced meanwhile"
                    error.recovery = "Read it again: the bytes already delivered belong to the version replaced"
                }
            }
            if retryable, attempt < retryPolicy.maxAttempts {
                Thread.sleep(forTimeInterval: retryPolicy.delay(after: attempt, using: &generator))
                continue
            }
            let elapsed = ContinuousClock.now - started
            error.updateS3 {
                $0.attempts = attempt
                $0.elapsed = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            throw error
        }
    }

    /// Runs `body` with an idle handle (or a new one), and keeps the handle for the next request when its
    /// exchange ended with an answer; a handle whose connection failed is dropped.
    private func withHandle(_ body: (CurlHandle) -> HTTPTransportFailure?) -> HTTPTransportFailure? {
        let handle: CurlHandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused
        } else {
            do { handle = try CurlHandle() } catch {
                return HTTPTransportFailure(kind: .local, message: error.message, curlCode: 0, local: error)
            }
        }
        let failure = body(handle)
        if failure == nil { idle.withLock { $0.append(handle) } }
        return failure
    }

    /// The hex SHA-256 of the body, worked out before sending (the signature covers it, and the server checks it): read
    /// once from a file; a part buffer hashed its bytes as they were copied in.
    private func payloadHash(of request: S3Request) throws(StorageError) -> String {
        switch request.body {
        case .empty:
            return S3Signer.emptyPayloadHash
        case .bytes(let bytes):
            return try S3Signer.hexSHA256(bytes)
        case .part(let buffer):
            return try buffer.payloadHash()
        case .descriptor(let fd, let offset, let length):
            var failure: StorageError?
            let digest = try S3Digest.sha256 { feed in
                var buffer = [UInt8](repeating: 0, count: min(Int(max(length, 1)), 1 << 20))
                var done: Int64 = 0
                while done < length, failure == nil {
                    let want = Int(min(Int64(buffer.count), length - done))
                    buffer.withUnsafeMutableBytes { raw in
                        do throws(Errno) {
                            let got = try Sys.pread(
                                fd, UnsafeMutableRawBufferPointer(rebasing: raw[0..<want]),
                                at: offset + done)
                            if got == 0 {
                                failure = StorageError(
                                    .io, "the file to upload is shorter than the length given", tier: .files,
                                    key: request.key,
                                    recovery: "Pass the file's size, and do not change it while it uploads")
                            }
                            feed(UnsafeRawBufferPointer(rebasing: raw[0..<got]))
                            done += Int64(got)
                        } catch {
                            failure = error.storageError(
                                "cannot read the file to upload", tier: .files, key: request.key)
                        }
                    }
                }
            }
            if let failure { throw failure }
            return Hex.encode(digest)
        }
    }

    private func transportError(_ failure: HTTPTransportFailure, request: S3Request) -> StorageError {
        if let local = failure.local { return local.attributed(tier: .files, key: request.key) }
        let message = configuration.credentials.redacting(failure.message)
        var error: StorageError
        switch failure.kind {
        case .timeout:
            error = StorageError(
                .timeout, "S3 \(request.operation) got no answer in time: \(message)", tier: .files, key: request.key,
                recovery: "The server at \(configuration.endpoint.absoluteString) is hung or slow; check it")
        case .connection, .local:
            error = StorageError(
                .connectionFailed, "S3 \(request.operation) lost its connection: \(message)", tier: .files,
                key: request.key,
                recovery: "Check that the server at \(configuration.endpoint.absoluteString) is running and reachable")
        }
        error.operation = request.operation
        error.detail = S3ErrorDetail(curlCode: failure.curlCode)
        return error
    }

    /// The error of an answer outside 2xx, from its error document when it has one.
    func answerError(status: Int, headers: [String: String], body: [UInt8], request: S3Request) -> StorageError {
        let document = S3XMLElement.parse(body)
        let redact = configuration.credentials.redacting
        var serviceCode = document?.text("Code").map(redact)
        if serviceCode == nil, status == 304 { serviceCode = "NotModified" }
        return S3ErrorMapping.error(
            status: status, serviceCode: serviceCode, message: document?.text("Message").map(redact),
            requestID: (document?.text("RequestId") ?? headers["x-amz-request-id"]).map(redact),
            operation: request.operation, key: request.key)
    }
}
