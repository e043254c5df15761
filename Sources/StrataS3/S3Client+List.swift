public import StrataCore

extension S3Client {
    /// One page of the objects whose keys start with `prefix` (ListObjectsV2), in key order.
    /// - Parameters:
    ///   - prefix: The start of the keys, relative to the configuration's prefix. The default is all keys.
    ///   - delimiter: Groups the keys that contain it after `prefix` into ``S3ListPage/commonPrefixes`` (`/` lists
    ///     one folder level). The default is none.
    ///   - continuationToken: The ``S3ListPage/nextContinuationToken`` of the previous page, nil for the first.
    ///   - maxKeys: The most keys and prefixes on the page (the server may return fewer). The default is 1,000.
    /// - Returns: The page.
    public func listPage(
        prefix: String = "", delimiter: String? = nil, continuationToken: String? = nil, maxKeys: Int = 1000
    ) throws(StorageError) -> S3ListPage {
        // Keys come back URL-encoded: XML 1.0 cannot carry every character a key may hold.
        var query = [
            ("list-type", "2"), ("prefix", objectKey(prefix)), ("max-keys", String(max(1, maxKeys))),
            ("encoding-type", "url"),
        ]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try send(S3Request(method: "GET", key: nil, query: query, operation: "list objects"))
        guard let document = S3XMLElement.parse(response.body), document.name == "ListBucketResult" else {
            throw StorageError(
                .corrupt, "the server's object listing is not a ListBucketResult document", tier: .files)
        }
        let strip = configuration.prefix.count
        let encoded = document.text("EncodingType") == "url"
        func decoded(_ text: String) -> String? { encoded ? Self.urlDecoded(text) : text }
        let objects = document.all("Contents").compactMap { entry -> S3ObjectInfo? in
            guard let key = entry.text("Key").flatMap(decoded), key.hasPrefix(configuration.prefix) else { return nil }
            return S3ObjectInfo(
                key: String(key.dropFirst(strip)), size: entry.text("Size").flatMap { Int64($0) } ?? 0,
                etag: entry.text("ETag").map(S3Response.unquoted) ?? "",
                lastModified: entry.text("LastModified").flatMap(S3Timestamp.parseISO8601))
        }
        let prefixes = document.all("CommonPrefixes").compactMap { $0.text("Prefix").flatMap(decoded) }
            .filter { $0.hasPrefix(configuration.prefix) }.map { String($0.dropFirst(strip)) }
        let truncated = document.text("IsTruncated") == "true"
        let next = document.text("NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        if truncated, next == nil {
            throw StorageError(
                .corrupt, "the server's listing is truncated but names no next page", tier: .files)
        }
        return S3ListPage(objects: objects, commonPrefixes: prefixes, nextContinuationToken: truncated ? next : nil)
    }

    /// Every object whose key starts with `prefix`, following the pages, in key order; with a delimiter, the
    /// common prefixes too.
    public func list(
        prefix: String = "", delimiter: String? = nil
    ) throws(StorageError) -> (objects: [S3ObjectInfo], commonPrefixes: [String]) {
        var objects: [S3ObjectInfo] = []
        var prefixes: [String] = []
        var token: String?
        repeat {
            let page = try listPage(prefix: prefix, delimiter: delimiter, continuationToken: token)
            objects += page.objects
            prefixes += page.commonPrefixes
            token = page.nextContinuationToken
        } while token != nil
        return (objects, prefixes)
    }

    /// A key of an `encoding-type=url` listing, decoded: `%XX` escapes of UTF-8 bytes, and `+` for a space (a `+`
    /// itself comes as `%2B`). Nil when the escapes are malformed or not UTF-8.
    static func urlDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next(), let low = iterator.next(),
                    let escaped = Hex.decode(String(decoding: [high, low], as: UTF8.self))?.first
                else { return nil }
                bytes.append(escaped)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
