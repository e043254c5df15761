import StrataCore
import StrataFiles

/// One streamed write of an object: the first ``smallBodyLimit`` bytes collect on the heap, then in a part buffer;
/// a body that fits in one part goes up in one PUT when it ends; a longer one becomes a multipart upload whose full parts go up in parallel while the body
/// is still being written (``S3PartUploads``), so memory holds at most the part being filled and those in flight.
///
/// The multipart upload is created when the first part is full (its first bytes give the content type). A write
/// that fails is aborted: no object appears.
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

    init(client: S3Client, key: String, inFlight: Int, pool: S3PartPool) {
        self.client = client
        self.key = key
        self.inFlight = inFlight
        self.pool = pool
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
            let id = try client.createMultipartUpload(key, contentType: contentType)
            uploads = S3PartUploads(client: client, key: key, uploadID: id, limit: inFlight)
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

    /// Makes the object visible with `metadata`: one PUT, or the last part and the completion followed by a copy
    /// of the object onto itself that records `metadata` (a completion cannot carry metadata, and the checksum is
    /// known only once the body ended).
    /// - Returns: Whether `metadata` was recorded (the copy onto itself may fail, or the object be replaced
    ///   meanwhile, after the object became visible: the write stands).
    @discardableResult
    func finish(metadata: [String: String]) throws(StorageError) -> Bool {
        guard let uploads else {
            let body: HTTPBody = buffer.map { .part($0) } ?? (small.isEmpty ? .empty : .bytes(small))
            _ = try client.put(key, body: body, contentType: contentType, metadata: metadata, precondition: nil)
            return true
        }
        if let part = buffer, !part.isEmpty {
            buffer = nil
            try submit(part, to: uploads)
        }
        let parts = try uploads.finish()
        let info = try client.completeMultipartUpload(key, uploadID: uploads.uploadID, parts: parts)
        self.uploads = nil
        do {
            try client.copy(
                key, to: key, precondition: .ifMatch(info.etag), contentType: contentType, metadata: metadata)
            return true
        } catch {
            return false
        }
    }

    /// Abandons a multipart upload under way, if any.
    func abort() {
        uploads?.abort()
        uploads = nil
    }
}
