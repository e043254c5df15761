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
        var query = [("list-type", "2"), ("prefix", objectKey(prefix)), ("max-keys", String(max(1, maxKeys)))]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try send(S3Request(method: "GET", key: nil, query: query, operation: "list objects"))
        guard let document = S3XMLElement.parse(response.body), document.name == "ListBucketResult" else {
            throw StorageError(
                .corrupt, "the server's object listing is not a ListBucketResult document", tier: .files)
        }
        let strip = configuration.prefix.count
        let objects = document.all("Contents").compactMap { entry -> S3ObjectInfo? in
            guard let key = entry.text("Key"), key.hasPrefix(configuration.prefix) else { return nil }
            return S3ObjectInfo(
                key: String(key.dropFirst(strip)), size: entry.text("Size").flatMap { Int64($0) } ?? 0,
                etag: entry.text("ETag").map(S3Response.unquoted) ?? "",
                lastModified: entry.text("LastModified").flatMap(S3Timestamp.parseISO8601))
        }
        let prefixes = document.all("CommonPrefixes").compactMap { $0.text("Prefix") }
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
}
