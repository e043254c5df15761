public import StrataCore

// The versions a bucket keeps of its objects (ListObjectVersions, DELETE with a version id) and the bucket
// requests that set versioning up: what erasing an object for good needs on a versioned bucket.
extension S3Client {
    /// Every version and delete marker of the objects whose keys start with `prefix`, following the pages: by key,
    /// then newest first (the server's order).
    /// - Parameter prefix: The start of the keys, relative to the configuration's prefix. The default is all keys.
    /// - Throws: `StorageError`: `.permissionDenied` when the access key may not list versions
    ///   (`s3:ListBucketVersions`), the S3 error otherwise.
    public func listObjectVersions(prefix: String = "") throws(StorageError) -> [S3ObjectVersion] {
        var versions: [S3ObjectVersion] = []
        try forEachVersionPage(prefix: prefix) { page in
            versions += page
            return true
        }
        return versions
    }

    /// Every version and delete marker of the object `key` itself, newest first — never those of the keys it is a
    /// prefix of (`a` does not take `ab`'s). Stops listing at the first other key: the server lists keys in byte
    /// order, in which a key comes before every longer key it starts.
    /// - Throws: `StorageError` `.invalidKey`, `.permissionDenied` when the access key may not list versions, the
    ///   S3 error otherwise.
    public func versions(of key: String) throws(StorageError) -> [S3ObjectVersion] {
        try checkKey(key)
        let exact = ExactString(key)
        var versions: [S3ObjectVersion] = []
        try forEachVersionPage(prefix: key) { page in
            versions += page.filter { ExactString($0.key) == exact }
            return page.allSatisfy { ExactString($0.key) == exact }
        }
        return versions
    }

    /// Removes one version of an object (or a delete marker) for good: no request can read it afterwards.
    /// Removing a version that is gone succeeds. The version id `null` names the object of an unversioned bucket.
    public func delete(_ key: String, versionID: String) throws(StorageError) {
        try checkKey(key)
        _ = try send(
            S3Request(method: "DELETE", key: key, query: [("versionId", versionID)], operation: "DELETE object version")
        )
    }

    /// Calls `body` with each page of versions under `prefix` while it returns true and pages remain.
    private func forEachVersionPage(
        prefix: String, _ body: ([S3ObjectVersion]) -> Bool
    ) throws(StorageError) {
        var markers: (key: String, version: String)?
        let strip = configuration.prefix.count
        repeat {
            var query = [("versions", ""), ("prefix", objectKey(prefix)), ("encoding-type", "url")]
            if let markers { query += [("key-marker", markers.key), ("version-id-marker", markers.version)] }
            let response = try send(
                S3Request(method: "GET", key: nil, query: query, operation: "list object versions"))
            guard let document = S3XMLElement.parse(response.body), document.name == "ListVersionsResult" else {
                throw StorageError(
                    .corrupt, "the server's version listing is not a ListVersionsResult document", tier: .files)
            }
            let encoded = document.text("EncodingType") == "url"
            func decoded(_ text: String) -> String? { encoded ? Self.urlDecoded(text) : text }
            let page = document.children.compactMap { entry -> S3ObjectVersion? in
                guard entry.name == "Version" || entry.name == "DeleteMarker",
                    let key = entry.text("Key").flatMap(decoded), key.hasPrefix(configuration.prefix),
                    let id = entry.text("VersionId")
                else { return nil }
                return S3ObjectVersion(
                    key: String(key.dropFirst(strip)), versionID: id, isLatest: entry.text("IsLatest") == "true",
                    isDeleteMarker: entry.name == "DeleteMarker", size: entry.text("Size").flatMap { Int64($0) } ?? 0,
                    lastModified: entry.text("LastModified").flatMap(S3Timestamp.parseISO8601))
            }
            guard body(page) else { return }
            if document.text("IsTruncated") == "true",
                let key = document.text("NextKeyMarker").flatMap(decoded),
                let version = document.text("NextVersionIdMarker"),
                markers.map({ $0 != (key, version) }) ?? true
            {
                markers = (key, version)
            } else {
                markers = nil
            }
        } while markers != nil
    }

    /// Creates the configuration's bucket (in the configuration's region's default location).
    /// - Throws: `StorageError` `.conflict` (`BucketAlreadyExists`, `BucketAlreadyOwnedByYou`), the S3 error
    ///   otherwise.
    public func createBucket() throws(StorageError) {
        _ = try send(S3Request(method: "PUT", key: nil, operation: "create bucket"))
    }

    /// Turns versioning of the configuration's bucket on (`Enabled`) or off (`Suspended`: the versions kept so far
    /// stay; new writes replace the `null` version). A bucket cannot return to never having been versioned.
    public func setVersioning(_ enabled: Bool) throws(StorageError) {
        let status = enabled ? "Enabled" : "Suspended"
        let body =
            "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>\(status)</Status>"
            + "</VersioningConfiguration>"
        _ = try send(
            S3Request(
                method: "PUT", key: nil, query: [("versioning", "")], headers: [("Content-Type", "application/xml")],
                body: .bytes(Array(body.utf8)), operation: "put bucket versioning"))
    }

    /// Whether versioning of the configuration's bucket is enabled (false when it never was, or is suspended).
    public func isVersioningEnabled() throws(StorageError) -> Bool {
        let response = try send(
            S3Request(method: "GET", key: nil, query: [("versioning", "")], operation: "get bucket versioning"))
        guard let document = S3XMLElement.parse(response.body), document.name == "VersioningConfiguration" else {
            throw StorageError(
                .corrupt, "the server's versioning answer is not a VersioningConfiguration document", tier: .files)
        }
        return document.text("Status") == "Enabled"
    }
}
