import StrataCore
import StrataFiles

/// One streamed write of an object: the first ``smallBodyLimit`` bytes collect on the heap, then in a part buffer;
/// a body that fits in one part goes up in one PUT when it ends; a longer one becomes a multipart upload whose full parts go up in parallel while the body
/// is still being written (``S3PartUploads``), so memory holds at most the part being filled and those in flight.
///
/// The multipart upload is created when the first part is full (its first bytes give the content type), under a
/// staging key (``S3FileEngine/stagingKey(for:)``), not under the object's: a completion cannot carry the checksum,
/// which is known only at the end, so the upload is completed there and copied into place with it (``finish(metadata:)``).
/// A write that fails is aborted: no object appears.
final class S3StreamedUpload {
    private let client: S3Client
    private let key: String
    private let inFlight: Int
    /// The part buffers, reused from part to part: the one being filled and those being uploaded (each one part
    /// long).
    let pool: S3PartPool
    /// The part being filled; taken from the pool once the body outgrows ``small`` (a small write maps nothing).
    private var buffer: S3PartBuffer?
    /// The body while it is at most ``smallBodyLimit`` bytes long: a small write goes up from here in one PUT,
    /// without mapping (and unmapping) a part buffer — that pair of system calls and the page faults between cost
    /// more than the rest of a 16 KiB write.
    private var small: [UInt8] = []
    /// The longest body held in ``small``.
    static let smallBodyLimit = 64 << 10
    /// The first 16 bytes, for the content type.
    private var head: [UInt8] = []
    private var uploads: S3PartUploads?
    private var nextPart = 1
    /// Told of each step of a multipart write as it is reached (``S3FileEngine/writeStepObserver``).
    private let reached: (S3WriteStep) -> Void

    init(client: S3Client, key: String, inFlight: Int, pool: S3PartPool, reached: @escaping (S3WriteStep) -> Void) {
        self.client = client
        self.key = key
        self.inFlight = inFlight
        self.pool = pool
        self.reached = reached
    }

    /// The object's content type: by its key's extension, else by its first bytes.
    var contentType: String { ContentType.of(key: key, head: head) }

    /// Takes the next bytes of the body. A full part is handed over only when more bytes come, so a body of
    /// exactly one part still goes up in one PUT.
    func take(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        if head.count < 16 { head += bytes.prefix(16 - head.count) }
        if buffer == nil, uploads == nil, small.count + bytes.count <= Self.smallBodyLimit {
            small.append(contentsOf: bytes)
            return
        }
        if !small.isEmpty {
            // Outgrown: the part buffer (at least 5 MiB) takes what was held.
            let part = try pool.take()
            buffer = part
            small.withUnsafeBytes { _ = part.append($0) }
            small = []
        }
        var done = 0
        while done < bytes.count {
            if buffer?.isFull == true { try ship() }
            if buffer == nil { buffer = try pool.take() }
            done += buffer!.append(UnsafeRawBufferPointer(rebasing: bytes[done...]))
        }
    }

    private func ship() throws(StorageError) {
        if uploads == nil {
            let staging = try S3FileEngine.stagingKey(for: key)
            let id = try client.createMultipartUpload(staging, contentType: contentType)
            uploads = S3PartUploads(client: client, key: staging, uploadID: id, limit: inFlight)
        }
        if let part = buffer {
            buffer = nil
            try submit(part, to: uploads!)
        }
    }

    /// Hands a full (or the last) part to the uploads; its buffer goes back to the pool once it is sent.
    private func submit(_ part: S3PartBuffer, to uploads: S3PartUploads) throws(StorageError) {
        let pool = pool
        try uploads.submit(number: nextPart, body: { .part(part) }, then: { pool.giveBack(part) })
        nextPart += 1
    }

    /// Makes the object visible with `metadata`: one PUT; or the last part, the completion under the staging key,
    /// one server-side copy into place with `metadata` (``S3Client/copy(_:size:to:precondition:contentType:metadata:)``,
    /// pinned to the completed tag), and a delete of the staged object. The object changes once, at the copy, to
    /// the new content with its checksum: a writer killed before it leaves the old object, after it the new one;
    /// what it leaves under the staging key is invisible, for ``S3FileEngine/removeLeftovers(olderThan:)``.
    /// - Throws: `StorageError`: the old object is then unchanged (and the staged object deleted, when it can be).
    func finish(metadata: [String: String]) throws(StorageError) {
        guard let uploads else {
            let body: HTTPBody = buffer.map { .part($0) } ?? (small.isEmpty ? .empty : .bytes(small))
            _ = try client.put(key, body: body, contentType: contentType, metadata: metadata, precondition: nil)
            return
        }
        if let part = buffer, !part.isEmpty {
            buffer = nil
            try submit(part, to: uploads)
        }
        let parts = try uploads.finish()
        reached(.uploaded)
        let staging = uploads.key
        let staged = try client.completeMultipartUpload(staging, uploadID: uploads.uploadID, parts: parts)
        self.uploads = nil
        reached(.staged)
        do {
            try client.copy(
                staging, size: staged.size, to: key, precondition: .ifMatch(staged.etag), contentType: contentType,
                metadata: metadata)
        } catch {
            remove(staged)
            throw error
        }
        reached(.placed)
        remove(staged)
    }

    /// Deletes a staged object, best effort (one left behind is ``S3FileEngine/removeLeftovers(olderThan:)``'s):
    /// by its version when the bucket gave it one, so that no copy of the content stays there, else plainly.
    private func remove(_ staged: S3ObjectInfo) {
        if let version = staged.versionID, (try? client.delete(staged.key, versionID: version)) != nil { return }
        try? client.delete(staged.key)
    }

    /// Abandons a multipart upload under way, if any.
    func abort() {
        uploads?.abort()
        uploads = nil
    }
}
