import Foundation
public import StrataCore
public import StrataSystem

extension S3Client {
    /// Writes an object from a range of an open file, streamed (the file is read twice: once for the SHA-256 the
    /// signature carries, once to send). The server refuses the body if it does not match that SHA-256, so an
    /// object is never stored damaged; a reader sees the old object or the new one, never a mix.
    ///
    /// For objects above ``S3Configuration/partSize`` use ``upload(_:from:offset:length:contentType:metadata:)``,
    /// which switches to a parallel multipart upload.
    /// - Parameters:
    ///   - key: The key, relative to the configuration's prefix.
    ///   - fd: An open, readable descriptor; its file position is not moved.
    ///   - offset: Where in the file the object starts. The default is 0.
    ///   - length: How many bytes the object has.
    ///   - contentType: The content type to record. The default is none (the server's default).
    ///   - metadata: User metadata (`x-amz-meta-*`): names of letters, digits and `-`, printable ASCII values.
    ///   - precondition: A condition on the object replaced (see ``S3Precondition``).
    /// - Returns: The new object's description (its entity tag).
    /// - Throws: `StorageError`: `.invalidKey`, `.invalidArgument` for metadata that cannot be a header, `.conflict`
    ///   when the precondition fails, `.tooLarge` (`EntityTooLarge`), the S3 error otherwise.
    @discardableResult
    public func put(
        _ key: String, from fd: FileDescriptor, offset: Int64 = 0, length: Int64, contentType: String? = nil,
        metadata: [String: String] = [:], precondition: S3Precondition? = nil
    ) throws(StorageError) -> S3ObjectInfo {
        try put(
            key, body: .descriptor(fd, offset: offset, length: length), contentType: contentType, metadata: metadata,
            precondition: precondition)
    }

    /// Writes an object from bytes in memory. See ``put(_:from:offset:length:contentType:metadata:precondition:)``.
    @discardableResult
    public func put(
        _ key: String, bytes: [UInt8], contentType: String? = nil, metadata: [String: String] = [:],
        precondition: S3Precondition? = nil
    ) throws(StorageError) -> S3ObjectInfo {
        try put(key, body: .bytes(bytes), contentType: contentType, metadata: metadata, precondition: precondition)
    }

    func put(
        _ key: String, body: HTTPBody, contentType: String?, metadata: [String: String],
        precondition: S3Precondition?
    ) throws(StorageError) -> S3ObjectInfo {
        try checkKey(key)
        guard body.length >= 0 else {
            throw StorageError(.invalidArgument, "an object's length cannot be negative", tier: .files, key: key)
        }
        var headers = try objectHeaders(key, contentType: contentType, metadata: metadata)
        if let precondition { headers.append(precondition.writeHeader) }
        let response = try send(
            S3Request(method: "PUT", key: key, headers: headers, body: body, operation: "PUT object"))
        return S3ObjectInfo(
            key: key, size: body.length, etag: response.etag ?? "", contentType: contentType, metadata: metadata)
    }

    /// The content type and metadata headers, refusing what cannot travel in a header (a header injection).
    func objectHeaders(
        _ key: String, contentType: String?, metadata: [String: String]
    ) throws(StorageError) -> [(String, String)] {
        func printable(_ text: String) -> Bool { text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) } }
        var headers: [(String, String)] = []
        if let contentType {
            guard printable(contentType), !contentType.isEmpty else {
                throw StorageError(
                    .invalidArgument, "a content type must be printable ASCII", tier: .files, key: key)
            }
            headers.append(("Content-Type", contentType))
        }
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let nameIsToken =
                !name.isEmpty
                && name.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                }
            guard nameIsToken, printable(value) else {
                var error = StorageError(
                    .invalidArgument, "S3 metadata names are letters, digits and '-', values printable ASCII",
                    tier: .files, key: key, recovery: "Encode other text (percent-encoding, base64) before storing it")
                error.attribute = name.escapedForDisplay
                throw error
            }
            headers.append(("x-amz-meta-" + name.lowercased(), value))
        }
        return headers
    }

    /// Reads an object (or a range of it) into an open file, streamed, written with `pwrite` from `offset`. When a
    /// lost connection cuts the transfer, the client asks for the rest only, pinned to the first answer's entity
    /// tag (`If-Match`): the file never holds bytes of two versions (the read fails with `.conflict` instead).
    /// - Parameters:
    ///   - key: The key, relative to the configuration's prefix.
    ///   - fd: An open, writable descriptor; its file position is not moved.
    ///   - offset: Where in the file to write the first byte. The default is 0.
    ///   - range: The bytes of the object to read (`0..<10`: the first ten). The default is all of them.
    ///   - precondition: A condition on the object's entity tag.
    /// - Returns: The object's description; ``S3ObjectInfo/size`` is the number of bytes written.
    /// - Throws: `StorageError` `.notFound` (`NoSuchKey`), `.conflict` (`PreconditionFailed`, `NotModified`),
    ///   `.invalidArgument` (`InvalidRange`), the file's error, or the S3 error.
    @discardableResult
    public func get(
        _ key: String, to fd: FileDescriptor, offset: Int64 = 0, range: Range<Int64>? = nil,
        precondition: S3Precondition? = nil
    ) throws(StorageError) -> S3ObjectInfo {
        try read(key, sink: .descriptor(fd, offset: offset), range: range, precondition: precondition).info
    }

    /// Reads an object (or a range of it) into memory. For large objects prefer
    /// ``get(_:to:offset:range:precondition:)``.
    public func data(
        for key: String, range: Range<Int64>? = nil, precondition: S3Precondition? = nil
    ) throws(StorageError) -> [UInt8] {
        try read(key, sink: .memory, range: range, precondition: precondition).body
    }

    func read(
        _ key: String, sink: HTTPSink, range: Range<Int64>?, precondition: S3Precondition?
    ) throws(StorageError) -> (info: S3ObjectInfo, body: [UInt8]) {
        try checkKey(key)
        if let range, range.lowerBound < 0 || range.isEmpty {
            throw StorageError(
                .invalidArgument, "a ranged read needs a non-empty range from 0 on", tier: .files, key: key)
        }
        let response = try send(
            S3Request(
                method: "GET", key: key, headers: precondition.map { [$0.readHeader] } ?? [], sink: sink,
                range: range, operation: "GET object"))
        var info = objectInfo(key, response.headers)
        info.size = sink.resumes ? response.written : Int64(response.body.count)
        return (info, response.body)
    }

    /// The description of an object, or nil when there is none.
    /// - Throws: `StorageError` for every failure but absence.
    public func head(_ key: String) throws(StorageError) -> S3ObjectInfo? {
        try checkKey(key)
        do {
            let response = try send(S3Request(method: "HEAD", key: key, operation: "HEAD object"))
            return objectInfo(key, response.headers)
        } catch  where error.code == .notFound {
            return nil
        }
    }

    /// Removes an object. Removing one that does not exist succeeds (S3 answers the same).
    public func delete(_ key: String) throws(StorageError) {
        try checkKey(key)
        _ = try send(S3Request(method: "DELETE", key: key, operation: "DELETE object"))
    }

    /// Copies an object on the server, without the bytes passing through this process (up to 5 GiB, S3's limit
    /// for one copy). The content type and metadata are copied with it, unless `metadata` replaces them.
    /// - Parameters:
    ///   - source: The key to copy, relative to the configuration's prefix.
    ///   - destination: The key to create or replace; it may be `source` itself when `metadata` is given (the way
    ///     to change an object's metadata).
    ///   - precondition: A condition on the source's entity tag.
    ///   - contentType: With `metadata`, the copy's content type.
    ///   - metadata: The copy's user metadata instead of the source's (`x-amz-metadata-directive: REPLACE`); nil
    ///     to keep the source's. The default is nil.
    /// - Returns: The new object's description.
    @discardableResult
    public func copy(
        _ source: String, to destination: String, precondition: S3Precondition? = nil, contentType: String? = nil,
        metadata: [String: String]? = nil
    ) throws(StorageError) -> S3ObjectInfo {
        try copy(
            source, to: destination, precondition: precondition, contentType: contentType, metadata: metadata,
            size: nil)
    }

    /// ``copy(_:to:precondition:contentType:metadata:)`` of a source whose size the caller knows (`size`): the
    /// copy's description then takes it, instead of a HEAD of the copy asking for it (nil).
    func copy(
        _ source: String, to destination: String, precondition: S3Precondition?, contentType: String?,
        metadata: [String: String]?, size: Int64?
    ) throws(StorageError) -> S3ObjectInfo {
        try checkKey(destination)
        var headers = try copySourceHeaders(source, precondition: precondition)
        if let metadata {
            headers.append(("x-amz-metadata-directive", "REPLACE"))
            headers += try objectHeaders(destination, contentType: contentType, metadata: metadata)
        }
        let request = S3Request(method: "PUT", key: destination, headers: headers, operation: "copy object")
        let response = try send(request)
        // A copy can fail after its 200 status line: the error is then the body.
        let document = S3XMLElement.parse(response.body)
        if document?.name == "Error" {
            throw answerError(status: 500, headers: response.headers, body: response.body, request: request)
        }
        let etag = document?.text("ETag").map(S3Response.unquoted) ?? response.etag ?? ""
        var copied = size ?? 0
        if size == nil { copied = try head(destination)?.size ?? 0 }
        return S3ObjectInfo(
            key: destination, size: copied, etag: etag,
            lastModified: document?.text("LastModified").flatMap(S3Timestamp.parseISO8601))
    }

    /// The headers that name the source of a server-side copy (of an object or of a part) and its condition.
    func copySourceHeaders(
        _ source: String, precondition: S3Precondition?
    ) throws(StorageError) -> [(String, String)] {
        try checkKey(source)
        // The copy source is the path without its leading slash, encoded as in the request line.
        return [("x-amz-copy-source", String(path(for: source).dropFirst()))] + (precondition?.copySourceHeaders ?? [])
    }

    /// The description of an object from the headers of its GET or HEAD answer.
    func objectInfo(_ key: String, _ headers: [String: String]) -> S3ObjectInfo {
        var metadata: [String: String] = [:]
        for (name, value) in headers where name.hasPrefix("x-amz-meta-") {
            metadata[String(name.dropFirst("x-amz-meta-".count))] = value
        }
        return S3ObjectInfo(
            key: key, size: headers["content-length"].flatMap { Int64($0) } ?? 0,
            etag: headers["etag"].map(S3Response.unquoted) ?? "",
            lastModified: headers["last-modified"].flatMap(S3Timestamp.parseHTTP), contentType: headers["content-type"],
            metadata: metadata, versionID: headers["x-amz-version-id"])
    }
}
