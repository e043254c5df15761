public import StrataCore

// Server-side copies of any size: one CopyObject up to the configuration's copy limit, else UploadPartCopy.
extension S3Client {
    /// Copies `source`, an object of `size` bytes, to `destination` with the content type and metadata given, on
    /// the server: one CopyObject up to ``S3Configuration/copyLimit`` (5 GiB, S3's limit for one copy), above it a
    /// multipart upload of `destination` created with the metadata, whose parts the server copies from `source`
    /// (UploadPartCopy, parts of the limit), then completed. Either way `destination` is replaced at once, by an
    /// object that carries the metadata.
    ///
    /// ```swift
    /// try client.copy("staged", size: info.size, to: "final", precondition: .ifMatch(info.etag),
    ///                 contentType: "video/mp4", metadata: ["origin": "camera-2"])
    /// ```
    /// - Parameters:
    ///   - source: The key to copy, relative to the configuration's prefix.
    ///   - size: The size of `source`, in bytes: it decides how the copy is made.
    ///   - destination: The key to create or replace.
    ///   - precondition: A condition on the source's entity tag, sent with every request that reads it (and checked
    ///     again before the completion of a part copy: Ceph 16.2 does not check it on parts).
    ///   - contentType: The copy's content type.
    ///   - metadata: The copy's user metadata (`x-amz-metadata-directive: REPLACE`).
    /// - Returns: The new object's description.
    /// - Throws: `StorageError` `.tooLarge` for an object that 10,000 parts of 5 GiB cannot hold, `.conflict` when
    ///   `precondition` fails, the S3 error otherwise: `destination` is then unchanged (a part copy that failed is
    ///   aborted).
    @discardableResult
    public func copy(
        _ source: String, size: Int64, to destination: String, precondition: S3Precondition? = nil,
        contentType: String?, metadata: [String: String]
    ) throws(StorageError) -> S3ObjectInfo {
        let ranges = try Self.copyRanges(size: size, limit: configuration.copyLimit, key: source)
        guard ranges.count > 1 else {
            return try copy(
                source, to: destination, precondition: precondition, contentType: contentType, metadata: metadata,
                size: size)
        }
        return try multipartUpload(destination, contentType: contentType, metadata: metadata) {
            (uploadID) throws(StorageError) in
            var parts: [S3CompletedPart] = []
            for (index, range) in ranges.enumerated() {
                parts.append(
                    try copyPart(
                        source, range: range, to: destination, uploadID: uploadID, number: index + 1,
                        precondition: precondition))
            }
            // Ceph 16.2 copies a part whatever its source condition says: the source must still be the version
            // asked for once every part is copied, or the parts may come from another.
            if let precondition, !precondition.holds(for: try head(source)?.etag) {
                var changed = StorageError(
                    .conflict, "the source of the copy changed or is gone", tier: .files, key: source,
                    recovery: "Read the source's entity tag again and copy again")
                changed.detail = S3ErrorDetail(serviceCode: "PreconditionFailed")
                throw changed
            }
            return parts
        }
    }

    /// The byte ranges a server-side copy of `size` bytes is made of: one (a CopyObject) up to `limit`; above it
    /// parts of `limit` bytes, or of the size 10,000 parts need when that is more (a multiple of a MiB).
    /// - Throws: `StorageError` `.tooLarge`, naming `key`, when 10,000 parts of 5 GiB (S3's largest part) cannot
    ///   hold `size` bytes.
    package static func copyRanges(size: Int64, limit: Int64, key: String) throws(StorageError) -> [Range<Int64>] {
        guard size > limit else { return [0..<size] }
        let mebibyte: Int64 = 1 << 20
        let needed = (size + 9_999) / 10_000
        let part = max(limit, (needed + mebibyte - 1) / mebibyte * mebibyte)
        guard part <= 5 << 30 else {
            throw StorageError(
                .tooLarge, "a server-side copy of \(size) bytes needs more than 10,000 parts of 5 GiB", tier: .files,
                key: key, recovery: "S3 objects are at most 5 TiB: store the content as several files")
        }
        return stride(from: 0, to: size, by: Int(part)).map { $0..<min($0 + part, size) }
    }

    /// Copies `range` of `source` into part `number` of the multipart upload `uploadID` of `destination`
    /// (UploadPartCopy).
    private func copyPart(
        _ source: String, range: Range<Int64>, to destination: String, uploadID: String, number: Int,
        precondition: S3Precondition?
    ) throws(StorageError) -> S3CompletedPart {
        try checkKey(destination)
        let headers =
            try copySourceHeaders(source, precondition: precondition)
            + [("x-amz-copy-source-range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        let request = S3Request(
            method: "PUT", key: destination, query: [("partNumber", String(number)), ("uploadId", uploadID)],
            headers: headers, operation: "copy part \(number)")
        let response = try send(request)
        // A part copy can fail after its 200 status line: the error is then the body.
        let document = S3XMLElement.parse(response.body)
        if document?.name == "Error" {
            throw answerError(status: 500, headers: response.headers, body: response.body, request: request)
        }
        guard let etag = document?.text("ETag").map(S3Response.unquoted), !etag.isEmpty else {
            throw StorageError(
                .corrupt, "the server copied part \(number) without an entity tag", tier: .files, key: destination)
        }
        return S3CompletedPart(number: number, etag: etag)
    }
}
