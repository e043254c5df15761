/// The steps of a streamed multipart write, in order, that ``S3FileEngine/writeStepObserver`` is told of: for tests
/// that kill a writer at each (`Tests/Child`'s `s3-write-stop`).
package enum S3WriteStep: String, Sendable, CaseIterable {
    /// Every part is up under the staging key; the upload is not completed.
    case uploaded
    /// The upload is completed under the staging key; nothing is copied into place yet.
    case staged
    /// The staged object is copied into place with its checksum; it is not deleted yet.
    case placed
}
