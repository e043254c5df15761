import Foundation
public import StrataCore

/// What an S3 error adds to a ``/StrataCore/StorageError``: the server's own answer, and how long the client kept
/// trying. Read it as `error.s3`.
///
/// ```swift
/// } catch let error as StorageError where error.s3?.serviceCode == "SlowDown" {
///     print("busy; request \(error.s3?.requestID ?? "?")")
/// }
/// ```
public struct S3ErrorDetail: StorageErrorDetail {
    /// The error code the server answered with, verbatim (`NoSuchKey`, `SlowDown`, `PreconditionFailed`, …).
    public var serviceCode: String?
    /// The identifier the server gave the failed request (`x-amz-request-id`), for its operator's logs.
    public var requestID: String?
    /// The HTTP status of the answer, when there was one.
    public var httpStatus: Int?
    /// libcurl's code, when the request failed before an answer (a connection lost, a timeout).
    public var curlCode: Int32?
    /// How many times the request (or the update) was sent before it failed.
    public var attempts: Int?
    /// How long it ran before it failed, in seconds.
    public var elapsed: Double?

    /// Creates a detail; every part is optional.
    public init(
        serviceCode: String? = nil, requestID: String? = nil, httpStatus: Int? = nil, curlCode: Int32? = nil,
        attempts: Int? = nil, elapsed: Double? = nil
    ) {
        self.serviceCode = serviceCode
        self.requestID = requestID
        self.httpStatus = httpStatus
        self.curlCode = curlCode
        self.attempts = attempts
        self.elapsed = elapsed
    }

    /// `code 404, service code "NoSuchKey", request "tx-1", 1 attempt(s), 0.012 s`: the parts there are.
    public var description: String {
        var parts: [String] = []
        if let code = httpStatus.map(Int32.init) ?? curlCode { parts.append("code \(code)") }
        if let serviceCode { parts.append("service code \(StorageError.quoted(serviceCode))") }
        if let requestID { parts.append("request \(StorageError.quoted(requestID))") }
        if let attempts { parts.append("\(attempts) attempt(s)") }
        if let elapsed { parts.append(String(format: "%.3f s", elapsed)) }
        return parts.joined(separator: ", ")
    }
}

extension StorageError {
    /// What the S3 server answered and how often the client tried, for an error of the S3 files engine; `nil` for
    /// others.
    public var s3: S3ErrorDetail? { detail as? S3ErrorDetail }

    /// Changes the S3 detail, starting from an empty one.
    mutating func updateS3(_ change: (inout S3ErrorDetail) -> Void) { updateDetail(S3ErrorDetail(), change) }
}
