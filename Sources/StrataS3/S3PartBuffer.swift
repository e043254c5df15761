/// One part's bytes in a streamed write, reused from part to part through ``S3PartPool``.
///
/// `@unchecked Sendable`: a buffer belongs to one thread at a time. The writer fills it, hands it to
/// ``S3PartUploads``, whose upload thread gives it back to the pool when the part is sent; the pool's mutex orders
/// each hand-over.
final class S3PartBuffer: @unchecked Sendable {
    /// The part's bytes; its capacity is kept when the buffer is emptied for the next part.
    var bytes: [UInt8] = []
}
