import StrataCore

extension S3FileEngine {
    /// Removes every version of an object the server keeps, so that no request through the S3 API can read its
    /// content afterwards: what `Storage` does to the copy of a value that became a credential.
    ///
    /// First the multipart uploads under way to `key` are aborted (their parts are content too, and one completing
    /// later would bring a version back), and those under the key's staging folder with every version of the objects
    /// staged there (what a writer killed mid-write left); then every version and delete marker of `key` (ListObjectVersions with
    /// the key as prefix, exact matches only: `ab` is not `a`'s) is deleted by its version id. On an unversioned
    /// bucket that is the one object (version `null`); on a versioned one, the versions older writes and deletes
    /// left too, which a plain `delete` keeps (it adds a delete marker).
    ///
    /// What it cannot do: overwrite the server's media. The server frees the versions' storage later (RADOS
    /// Gateway's garbage collector, after `rgw_gc_obj_min_wait`); until then the bytes sit in its pool, readable by
    /// whoever administers the storage, never through S3. A write of `key` that lands while this runs is a new
    /// value and stays (`Storage` holds the key's lock across processes, so none of its own writes can).
    /// - Returns: Whether there was a file (the current version was an object, not a delete marker).
    /// - Throws: `StorageError`: `.permissionDenied` when the access key may not list or delete versions
    ///   (`s3:ListBucketVersions`, `s3:DeleteObjectVersion`), the S3 error otherwise; versions already deleted stay
    ///   deleted, and calling it again finishes the job.
    public func deleteSecurely(_ key: String) throws -> Bool {
        let exact = ExactString(key)
        for upload in try client.listMultipartUploads(prefix: key) where ExactString(upload.key) == exact {
            try client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
        }
        try eraseStaged(key)
        let versions = try client.versions(of: key)
        for version in versions {
            try client.delete(key, versionID: version.versionID)
        }
        forgetUse(of: key)
        return versions.contains { $0.isLatest && !$0.isDeleteMarker }
    }
}
