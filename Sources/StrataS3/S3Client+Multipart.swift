import Foundation
public import StrataCore
public import StrataSystem

extension S3Client {
    /// Writes an object of any size from a range of an open file: one PUT up to ``S3Configuration/partSize``,
    /// above it a multipart upload whose parts go up ``S3Configuration/concurrency`` at a time. A failed multipart
    /// upload is aborted, so no object appears and no parts are left behind (unless the server itself is gone; see
    /// ``listMultipartUploads(prefix:)``).
    /// - Returns: The new object's description.
    @discardableResult
    public func upload(
        _ key: String, from fd: FileDescriptor, offset: Int64 = 0, length: Int64, contentType: String? = nil,
        metadata: [String: String] = [:]
    ) throws(StorageError) -> S3ObjectInfo {
        guard length > configuration.partSize else {
            return try put(
                key, from: fd, offset: offset, length: length, contentType: contentType, metadata: metadata)
        }
        var info = try multipartUpload(key, contentType: contentType, metadata: metadata) {
            (uploadID) throws(StorageError) in
            try uploadParts(key, uploadID: uploadID, from: fd, offset: offset, length: length)
        }
        info.contentType = contentType
        info.metadata = metadata
        return info
    }

    /// Creates a multipart upload of `key`, has `uploadParts` upload every part under the upload's id, and
    /// completes it. A failure aborts the upload: no object appears and no parts are left behind.
    ///
    /// A completion the server still refuses with an error of its own (HTTP 5xx) once every retry is spent begins
    /// the whole upload again, once, under a new id. Ceph's gateway refuses so while a gateway that died completing
    /// the upload still holds the upload's lock (`rgw_mp_lock_max_time`, 10 minutes by default): no retry can
    /// complete that upload before then, and a new one is not held by it.
    /// - Parameter uploadParts: Uploads every part under the id it is given (and checks whatever must hold before
    ///   the completion); called a second time, with the new id, when the upload begins again.
    /// - Returns: The new object's description.
    package func multipartUpload(
        _ key: String, contentType: String?, metadata: [String: String],
        parts uploadParts: (_ uploadID: String) throws(StorageError) -> [S3CompletedPart]
    ) throws(StorageError) -> S3ObjectInfo {
        var begunAgain = false
        while true {
            let uploadID = try createMultipartUpload(key, contentType: contentType, metadata: metadata)
            let parts: [S3CompletedPart]
            do throws(StorageError) {
                parts = try uploadParts(uploadID)
            } catch {
                try? abortMultipartUpload(key, uploadID: uploadID)
                throw error
            }
            do throws(StorageError) {
                return try completeMultipartUpload(key, uploadID: uploadID, parts: parts)
            } catch {
                try? abortMultipartUpload(key, uploadID: uploadID)
                let refusedByServer = error.s3?.serviceCode != nil && (error.s3?.httpStatus ?? 0) >= 500
                guard refusedByServer, !begunAgain else { throw error }
                begunAgain = true
            }
        }
    }

    /// The parts of `length` bytes from `offset`, uploaded by ``S3Configuration/concurrency`` workers; the first
    /// failure stops the others (the parts under way finish).
    private func uploadParts(
        _ key: String, uploadID: String, from fd: FileDescriptor, offset: Int64, length: Int64
    ) throws(StorageError) -> [S3CompletedPart] {
        let size = configuration.partSize
        let count = Int((length + size - 1) / size)
        guard count <= 10_000 else {
            throw StorageError(
                .tooLarge, "the object needs more than 10,000 parts of \(size) bytes", tier: .files, key: key,
                recovery: "Raise S3Configuration.partSize")
        }
        let uploads = S3PartUploads(client: self, key: key, uploadID: uploadID, limit: configuration.concurrency)
        do {
            for index in 0..<count {
                let start = Int64(index) * size
                let part = min(size, length - start)
                try uploads.submit(number: index + 1) { .descriptor(fd, offset: offset + start, length: part) }
            }
        } catch {
            _ = try? uploads.finish()
            throw error
        }
        return try uploads.finish()
    }

    /// Starts a multipart upload.
    /// - Returns: The upload's id, for the parts, the completion and the abort.
    public func createMultipartUpload(
        _ key: String, contentType: String? = nil, metadata: [String: String] = [:]
    ) throws(StorageError) -> String {
        try checkKey(key)
        let headers = try objectHeaders(key, contentType: contentType, metadata: metadata)
        let response = try send(
            S3Request(
                method: "POST", key: key, query: [("uploads", "")], headers: headers,
                operation: "create multipart upload"))
        guard let id = S3XMLElement.parse(response.body)?.text("UploadId"), !id.isEmpty else {
            throw StorageError(.corrupt, "the server started a multipart upload without an id", tier: .files, key: key)
        }
        return id
    }

    /// Uploads one part (at least 5 MiB, except the last) from a range of an open file.
    /// - Parameters:
    ///   - key: The object's key.
    ///   - uploadID: The id ``createMultipartUpload(_:contentType:metadata:)`` returned.
    ///   - number: The part number, 1 to 10,000.
    ///   - fd: An open file descriptor to read the part from; it stays open.
    ///   - offset: Where the part starts in the file.
    ///   - length: The part's size in bytes.
    /// - Returns: The part's number and entity tag, for the completion.
    public func uploadPart(
        _ key: String, uploadID: String, number: Int, from fd: FileDescriptor, offset: Int64, length: Int64
    ) throws(StorageError) -> S3CompletedPart {
        try uploadPart(key, uploadID: uploadID, number: number, body: .descriptor(fd, offset: offset, length: length))
    }

    /// Uploads one part (at least 5 MiB, except the last) from bytes in memory.
    /// - Parameters:
    ///   - key: The object's key.
    ///   - uploadID: The id ``createMultipartUpload(_:contentType:metadata:)`` returned.
    ///   - number: The part number, 1 to 10,000.
    ///   - bytes: The part's bytes.
    /// - Returns: The part's number and entity tag, for the completion.
    public func uploadPart(
        _ key: String, uploadID: String, number: Int, bytes: [UInt8]
    ) throws(StorageError) -> S3CompletedPart {
        try uploadPart(key, uploadID: uploadID, number: number, body: .bytes(bytes))
    }

    func uploadPart(
        _ key: String, uploadID: String, number: Int, body: HTTPBody
    ) throws(StorageError) -> S3CompletedPart {
        try checkKey(key)
        let response = try send(
            S3Request(
                method: "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
                body: body, operation: "upload part \(number)"))
        guard let etag = response.etag, !etag.isEmpty else {
            throw StorageError(
                .corrupt, "the server stored part \(number) without an entity tag", tier: .files, key: key)
        }
        return S3CompletedPart(number: number, etag: etag)
    }

    /// Completes a multipart upload: the object appears, whole, at once.
    ///
    /// Ceph 16.2 answers an empty entity tag here; the client then asks for it with a HEAD.
    /// - Parameters:
    ///   - key: The object's key.
    ///   - uploadID: The id ``createMultipartUpload(_:contentType:metadata:)`` returned.
    ///   - parts: Every part, in increasing number order.
    /// - Returns: The new object's description.
    public func completeMultipartUpload(
        _ key: String, uploadID: String, parts: [S3CompletedPart]
    ) throws(StorageError) -> S3ObjectInfo {
        try checkKey(key)
        let xml =
            "<CompleteMultipartUpload>"
            + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\"\($0.etag)\"</ETag></Part>" }.joined()
            + "</CompleteMultipartUpload>"
        let request = S3Request(
            method: "POST", key: key, query: [("uploadId", uploadID)], headers: [("Content-Type", "application/xml")],
            body: .bytes(Array(xml.utf8)), operation: "complete multipart upload")
        let response: S3Response
        do {
            response = try send(request)
        } catch  where error.s3?.serviceCode == "NoSuchUpload" && (error.s3?.attempts ?? 1) > 1 {
            // An earlier attempt completed it and its answer was lost: the object is there.
            guard let info = try head(key) else { throw error }
            return info
        }
        // Completing can fail after its 200 status line: the error is then the body.
        let document = S3XMLElement.parse(response.body)
        if document?.name == "Error" {
            throw answerError(status: 500, headers: response.headers, body: response.body, request: request)
        }
        let etag = document?.text("ETag").map(S3Response.unquoted) ?? ""
        guard let info = try head(key) else {
            throw StorageError(
                .notFound, "the completed multipart upload's object is not there", tier: .files, key: key,
                recovery: "Another writer may have deleted it; upload it again")
        }
        var completed = info
        if !etag.isEmpty { completed.etag = etag }
        return completed
    }

    /// Abandons a multipart upload: its parts are deleted and no object appears. Aborting one that is gone
    /// succeeds.
    public func abortMultipartUpload(_ key: String, uploadID: String) throws(StorageError) {
        try checkKey(key)
        do {
            _ = try send(
                S3Request(
                    method: "DELETE", key: key, query: [("uploadId", uploadID)], operation: "abort multipart upload"))
        } catch  where error.code == .notFound {
            return
        }
    }

    /// The multipart uploads still open under `prefix`: what a crash left behind. Abort them with
    /// ``abortMultipartUpload(_:uploadID:)`` once no writer can still be completing them.
    public func listMultipartUploads(prefix: String = "") throws(StorageError) -> [S3MultipartUpload] {
        var uploads: [S3MultipartUpload] = []
        var markers: (key: String, upload: String)?
        let strip = configuration.prefix.count
        repeat {
            var query = [("uploads", ""), ("prefix", objectKey(prefix)), ("encoding-type", "url")]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let response = try send(
                S3Request(method: "GET", key: nil, query: query, operation: "list multipart uploads"))
            guard let document = S3XMLElement.parse(response.body), document.name == "ListMultipartUploadsResult"
            else {
                throw StorageError(
                    .corrupt, "the server's upload listing is not a ListMultipartUploadsResult document", tier: .files)
            }
            let encoded = document.text("EncodingType") == "url"
            for entry in document.all("Upload") {
                guard let key = entry.text("Key").flatMap({ encoded ? Self.urlDecoded($0) : $0 }),
                    key.hasPrefix(configuration.prefix), let id = entry.text("UploadId")
                else { continue }
                uploads.append(
                    S3MultipartUpload(
                        key: String(key.dropFirst(strip)), uploadID: id,
                        initiated: entry.text("Initiated").flatMap(S3Timestamp.parseISO8601)))
            }
            if document.text("IsTruncated") == "true",
                let key = document.text("NextKeyMarker").flatMap({ encoded ? Self.urlDecoded($0) : $0 }),
                let upload = document.text("NextUploadIdMarker"), markers.map({ $0 != (key, upload) }) ?? true
            {
                markers = (key, upload)
            } else {
                markers = nil
            }
        } while markers != nil
        return uploads
    }
}
