import StrataCore

/// Every S3 error code, as a ``/StrataCore/StorageError/Code`` a caller can branch on, whether sending the request
/// again may succeed, and what to do about it. The S3 code itself travels verbatim in the error's
/// ``S3ErrorDetail/serviceCode``.
enum S3ErrorMapping {
    struct Entry: Sendable {
        var code: StorageError.Code
        var isRetryable: Bool
        var recovery: String
    }

    private static let missing = Entry(
        code: .notFound, isRetryable: false, recovery: "Check the bucket, the prefix and the key")
    private static let credentials = Entry(
        code: .authenticationFailed, isRetryable: false,
        recovery: "Check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, the region and the clock")
    private static let denied = Entry(
        code: .permissionDenied, isRetryable: false, recovery: "Grant the access key this operation on the bucket")
    private static let large = Entry(
        code: .tooLarge, isRetryable: false,
        recovery: "Split the object (multipart upload), or shorten the key or metadata")
    private static let damaged = Entry(
        code: .corrupt, isRetryable: false,
        recovery: "The bytes the server received do not match their checksum; do not change a file while it uploads")
    private static let conflicting = Entry(
        code: .conflict, isRetryable: false,
        recovery: "The object or bucket changed or exists; read it again and decide")
    private static let busy = Entry(
        code: .connectionFailed, isRetryable: true, recovery: "The server is failing or overloaded; try again later")
    private static let refused = Entry(
        code: .invalidArgument, isRetryable: false, recovery: "The server refused the request as malformed")
    private static let elsewhere = Entry(
        code: .invalidArgument, isRetryable: false,
        recovery: "The bucket lives at another endpoint or region; set AWS_ENDPOINT_URL and AWS_REGION to it")

    /// The S3 error codes (AWS's list, and the ones Ceph's RADOS Gateway adds).
    static let table: [String: Entry] = {
        var table: [String: Entry] = [:]
        func add(_ entry: Entry, _ codes: String...) { for code in codes { table[code] = entry } }
        add(
            missing, "NoSuchKey", "NoSuchBucket", "NoSuchUpload", "NoSuchVersion", "NoSuchBucketPolicy",
            "NoSuchLifecycleConfiguration", "NoSuchTagSet", "NoSuchTagSetError", "NoSuchCORSConfiguration",
            "NoSuchWebsiteConfiguration", "ReplicationConfigurationNotFoundError",
            "ServerSideEncryptionConfigurationNotFoundError", "ObjectLockConfigurationNotFoundError",
            "NoSuchPublicAccessBlockConfiguration", "NoSuchEntity")
        add(
            credentials, "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken",
            "TokenRefreshRequired", "RequestTimeTooSkewed", "AuthorizationHeaderMalformed",
            "AuthorizationQueryParametersError", "CredentialsNotSupported", "InvalidSecurity",
            "MissingSecurityHeader", "MissingSecurityElement", "NotSignedUp", "InvalidIdentityToken")
        add(
            denied, "AccessDenied", "AccountProblem", "AllAccessDisabled", "InvalidPayer",
            "UserSuspended", "InvalidObjectState")
        add(
            large, "EntityTooLarge", "MetadataTooLarge", "KeyTooLongError", "InlineDataTooLarge",
            "MaxMessageLengthExceeded", "MaxPostPreDataLengthExceededError", "RequestHeaderSectionTooLarge")
        add(damaged, "BadDigest", "XAmzContentSHA256Mismatch", "InvalidChecksum")
        add(
            conflicting, "PreconditionFailed", "BucketAlreadyExists", "BucketAlreadyOwnedByYou", "BucketNotEmpty",
            "RestoreAlreadyInProgress", "InvalidBucketState", "ConditionalRequestConflict")
        add(
            Entry(
                code: .conflict, isRetryable: false,
                recovery: "The object still has the entity tag given with If-None-Match: the copy at hand is current"),
            "NotModified")
        add(
            Entry(code: .conflict, isRetryable: true, recovery: "Another operation on the object is under way"),
            "OperationAborted")
        add(
            Entry(code: .noSpace, isRetryable: false, recovery: "Raise the quota or remove objects"),
            "QuotaExceeded", "TooManyBuckets")
        add(
            Entry(code: .timeout, isRetryable: true, recovery: "The connection was too slow; try again"),
            "RequestTimeout")
        add(
            Entry(code: .io, isRetryable: true, recovery: "The body arrived short; try again"), "IncompleteBody")
        add(busy, "InternalError", "ServiceUnavailable", "SlowDown", "503 SlowDown", "Busy", "ServiceFailure")
        add(elsewhere, "PermanentRedirect", "Redirect", "TemporaryRedirect", "IllegalLocationConstraintException")
        add(
            refused, "InvalidArgument", "InvalidRequest", "InvalidBucketName", "InvalidDigest", "InvalidPart",
            "InvalidPartOrder", "InvalidRange", "InvalidURI", "MalformedXML", "MalformedACLError",
            "MalformedPOSTRequest", "MalformedPolicy", "MethodNotAllowed", "MissingContentLength",
            "MissingRequestBodyError", "NotImplemented", "EntityTooSmall", "InvalidStorageClass",
            "InvalidLocationConstraint", "InvalidTag", "UnexpectedContent", "UserKeyMustBeSpecified",
            "InvalidEncryptionAlgorithmError", "InvalidPolicyDocument", "InvalidTargetBucketForLogging",
            "IncorrectNumberOfFilesInPostRequest", "AmbiguousGrantByEmailAddress",
            "UnresolvableGrantByEmailAddress", "CrossLocationLoggingProhibited", "InvalidAddressingHeader",
            "InvalidSOAPRequest", "MissingAttachment", "NoLoggingStatusForKey", "RequestIsNotMultiPartContent",
            "RequestTorrentOfBucketError", "IllegalVersioningConfigurationException", "InvalidEncoding",
            "InvalidWriteOffset", "UnknownError", "InvalidUtf8", "LengthRequired", "UnprocessableEntity")
        return table
    }()

    /// The entry for an S3 code, or — for a code this table does not know, or an answer without a body (HEAD) —
    /// the one its HTTP status implies.
    static func entry(serviceCode: String?, status: Int) -> Entry {
        if let serviceCode, let entry = table[serviceCode] { return entry }
        switch status {
        case 404: return missing
        case 401, 403: return status == 401 ? credentials : denied
        case 412: return conflicting
        case 301, 307, 308: return elsewhere
        case 400, 405, 411, 416: return refused
        case 413: return large
        case 408: return table["RequestTimeout"]!
        case 429, 500...599: return busy
        default: return Entry(code: .io, isRetryable: false, recovery: "The server answered an unexpected status")
        }
    }

    /// The error for an S3 answer outside 2xx.
    /// - Parameters:
    ///   - serviceCode: `<Code>` of the error document, if there was one.
    ///   - message: `<Message>` of the error document, already stripped of credentials.
    static func error(
        status: Int, serviceCode: String?, message: String?, requestID: String?, operation: String, key: String?
    ) -> StorageError {
        let entry = entry(serviceCode: serviceCode, status: status)
        let what = "S3 \(operation) failed with HTTP \(status)"
        var error = StorageError(
            entry.code, message.map { $0.isEmpty ? what : "\(what): \($0)" } ?? what, tier: .files, key: key,
            recovery: entry.recovery)
        error.detail = S3ErrorDetail(serviceCode: serviceCode, requestID: requestID, httpStatus: status)
        error.operation = operation
        return error
    }
}
