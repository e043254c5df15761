import StrataCore
import Testing

@testable import StrataS3

@Suite struct S3ErrorMappingTests {
    @Test(arguments: [
        ("NoSuchKey", StorageError.Code.notFound), ("NoSuchBucket", .notFound), ("NoSuchUpload", .notFound),
        ("SignatureDoesNotMatch", .authenticationFailed), ("InvalidAccessKeyId", .authenticationFailed),
        ("RequestTimeTooSkewed", .authenticationFailed), ("ExpiredToken", .authenticationFailed),
        ("AccessDenied", .permissionDenied), ("EntityTooLarge", .tooLarge), ("KeyTooLongError", .tooLarge),
        ("PreconditionFailed", .conflict), ("NotModified", .conflict), ("BucketNotEmpty", .conflict),
        ("BadDigest", .corrupt), ("XAmzContentSHA256Mismatch", .corrupt), ("QuotaExceeded", .noSpace),
        ("SlowDown", .connectionFailed), ("InternalError", .connectionFailed), ("RequestTimeout", .timeout),
        ("InvalidRange", .invalidArgument), ("EntityTooSmall", .invalidArgument), ("MalformedXML", .invalidArgument),
        ("PermanentRedirect", .invalidArgument),
    ])
    func everyCodeHasItsStorageCode(_ serviceCode: String, _ expected: StorageError.Code) {
        #expect(S3ErrorMapping.entry(serviceCode: serviceCode, status: 400).code == expected)
    }

    @Test func onlyTransientFailuresAreRetried() {
        let retried = S3ErrorMapping.table.filter { $0.value.isRetryable }.keys.sorted()
        #expect(
            retried == [
                "503 SlowDown", "Busy", "IncompleteBody", "InternalError", "OperationAborted", "RequestTimeout",
                "ServiceFailure", "ServiceUnavailable", "SlowDown",
            ])
        #expect(S3ErrorMapping.entry(serviceCode: nil, status: 503).isRetryable)
        #expect(S3ErrorMapping.entry(serviceCode: "SomethingNew", status: 500).isRetryable)
        #expect(!S3ErrorMapping.entry(serviceCode: "SomethingNew", status: 400).isRetryable)
    }

    @Test(arguments: [
        (404, StorageError.Code.notFound), (403, .permissionDenied), (412, .conflict), (416, .invalidArgument),
        (503, .connectionFailed), (418, .io),
    ])
    func answersWithoutADocumentMapByStatus(_ status: Int, _ expected: StorageError.Code) {
        #expect(S3ErrorMapping.entry(serviceCode: nil, status: status).code == expected)
    }

    @Test func theErrorCarriesTheServiceCodeRequestIDStatusAndOperation() {
        let error = S3ErrorMapping.error(
            status: 404, serviceCode: "NoSuchKey", message: "The specified key does not exist.", requestID: "tx-1",
            operation: "GET object", key: "a/b")
        #expect(error.code == .notFound)
        #expect(error.s3?.serviceCode == "NoSuchKey")
        #expect(error.s3?.requestID == "tx-1")
        #expect(error.s3?.httpStatus == 404)
        #expect(error.operation == "GET object")
        #expect(error.key == "a/b")
        #expect(error.tier == .files)
        #expect(error.recovery != nil)
        let text = "\(error)"
        #expect(text.contains("NoSuchKey") && text.contains("tx-1") && text.contains("a/b"))
    }

    @Test func theDetailPrintsWhereTheSharedFieldsEnd() {
        var error = S3ErrorMapping.error(
            status: 503, serviceCode: "SlowDown", message: nil, requestID: "tx-2", operation: "PUT object", key: "k")
        error.updateS3 {
            $0.attempts = 3
            $0.elapsed = 1.25
        }
        #expect(
            "\(error)"
                == "connection-failed: S3 PUT object failed with HTTP 503 (tier files, key \"k\", during PUT object, code 503, "
                + "service code \"SlowDown\", request \"tx-2\", 3 attempt(s), 1.250 s). \(error.recovery ?? "")")
        #expect(
            error.s3
                == S3ErrorDetail(
                    serviceCode: "SlowDown", requestID: "tx-2", httpStatus: 503, attempts: 3, elapsed: 1.25))
        var other = error
        #expect(other == error)
        other.updateS3 { $0.attempts = 4 }
        #expect(other != error)
    }

    @Test func retryDelaysStayUnderTheirDoublingCeiling() {
        let policy = S3RetryPolicy(maxAttempts: 8, baseDelay: 0.1, maxDelay: 2)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...40 {
            let ceiling = min(2, 0.1 * Double(1 << min(attempt - 1, 30)))
            for _ in 0..<20 {
                let delay = policy.delay(after: attempt, using: &generator)
                #expect(delay >= 0 && delay <= ceiling)
            }
        }
        // Jitter: the delays are not all the same.
        let delays = Set((0..<50).map { _ in policy.delay(after: 4, using: &generator) })
        #expect(delays.count > 10)
    }
}
