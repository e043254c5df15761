public import Foundation
import StrataCore
public import StrataFiles
import Synchronization

extension S3FileEngine {
    /// Replaces the object `key` with what `body` writes, streamed: one PUT up to ``partSize`` bytes, else a
    /// multipart upload with ``partsInFlight`` parts going up while `body` writes on. Nothing becomes visible
    /// unless `body` returns and the upload completes; a multipart upload that fails is aborted.
    /// - Throws: What `body` throws, or `StorageError` (`.connectionFailed`, `.timeout`, `.authenticationFailed`,
    ///   ...): the old object is then unchanged.
    public func write(_ key: String, _ body: (inout FileWriter) throws -> Void) throws {
        let pool = S3PartPool(capacity: partsInFlight + 1, bufferSize: partSize) { [self] buffers, heldBytes in
            allocatedPartBuffers.add(buffers, ordering: .relaxed)
            largestPartMemoryHeld.max(heldBytes, ordering: .relaxed)
        }
        let upload = S3StreamedUpload(client: client, key: key, inFlight: partsInFlight, pool: pool) { [self] step in
            writeStepObserver.withLock { $0 }?(step)
        }
        do {
            var writer = FileWriter(sink: { bytes in try upload.take(bytes) })
            try body(&writer)
            try upload.finish(metadata: Self.integrityMetadata(crc: writer.crc, size: writer.count))
        } catch {
            upload.abort()
            throw error
        }
    }

    /// Reads, transforms and replaces an object with a compare-and-swap on its entity tag: the new content is put
    /// with `If-Match` on the tag read (`If-None-Match: *` when there was no object), and when another writer won
    /// meanwhile the engine reads again and calls `transform` again, after a backoff with jitter. No writer's
    /// update is lost, in any process. The new content goes up in one PUT (up to 5 GiB).
    /// - Throws: What `transform` throws, `StorageError` `.conflict` when other writers kept winning for
    ///   ``contentionTimeout`` seconds, or the S3 error.
    public func update(_ key: String, _ transform: (Data?) throws -> Data) throws {
        let deadline = Date().addingTimeInterval(contentionTimeout)
        var ceiling = 0.01
        var tries = 0
        while true {
            tries += 1
            let current = try fetch(key)
            let new = try transform(current?.data)
            if try put(new, to: key, replacing: current?.etag) { return }
            guard Date() < deadline else {
                var error = StorageError(
                    .conflict, "other writers kept replacing the object during \(tries) tries to update it",
                    tier: .files, key: key,
                    recovery: "Too many processes update this key at once; spread the updates over several keys")
                error.detail = S3ErrorDetail(attempts: tries)
                throw error
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0...ceiling))
            ceiling = min(ceiling * 2, 0.5)
        }
    }

    /// Appends `data` to an object (creating it) as a read-modify-write under ``update(_:_:)``'s compare-and-swap:
    /// the object is read whole, `data` added, and the result put back with `If-Match`. S3 has no append, and a
    /// multipart copy of the old object could not be made conditional on Ceph 16.2; the cost is a read and a write
    /// of the whole object per append.
    public func append(_ data: Data, to key: String) throws {
        try update(key) { current in (current ?? Data()) + data }
    }

    /// The whole object with its entity tag, or nil when there is none.
    func fetch(_ key: String) throws -> (data: Data, etag: String)? {
        var data = Data()
        do {
            let info = try client.read(key) { data.append(contentsOf: $0) }
            return (data, info.etag)
        } catch let error as StorageError where error.code == .notFound {
            return nil
        }
    }

    /// Puts `data` if the object still has entity tag `etag` (if there is still no object, for nil).
    /// - Returns: Whether it was put; false when another writer won.
    private func put(_ data: Data, to key: String, replacing etag: String?) throws -> Bool {
        let token = UUID().uuidString
        var metadata = Self.integrityMetadata(crc: try Self.crc32(data), size: data.count)
        metadata[Self.writeMetadata] = token
        let contentType = ContentType.of(key: key, head: Array(data.prefix(16)))
        let condition: S3Precondition = etag.map { .ifMatch($0) } ?? .ifNoneMatch("*")
        var failure: StorageError
        do {
            try client.put(
                key, bytes: Array(data), contentType: contentType, metadata: metadata, precondition: condition)
            return true
        } catch {
            failure = error
        }
        // Ceph 16.2 checks the condition, then writes with a guard on the tag: a writer that wins between the two
        // makes the guard fail, which the gateway answers as HTTP 500 `UnknownError` (nothing was written).
        let racedInGateway = failure.s3?.httpStatus == 500 && failure.s3?.serviceCode == "UnknownError"
        guard failure.code == .conflict || racedInGateway else { throw failure }
        // A retried PUT whose first try landed (its answer lost) fails its own condition: the token tells.
        guard (failure.s3?.attempts ?? 1) > 1 || racedInGateway else { return false }
        return try client.head(key)?.metadata[Self.writeMetadata] == token
    }
}
