import StrataCore

extension S3Client {
    /// Streams an object (or a range of it) to `body` in chunks of `chunkSize` bytes (the last one shorter), with
    /// one buffer reused for every chunk: memory stays flat whatever the size.
    ///
    /// Every chunk comes from one version of the object: when a lost connection cuts the transfer, the client asks
    /// for the rest only, with `If-Match` on the first answer's entity tag, and fails with `.conflict` if the
    /// object was replaced meanwhile.
    /// - Parameters:
    ///   - key: The key, relative to the configuration's prefix.
    ///   - range: The bytes of the object to read; a range reaching past the end is cut at the end. The default
    ///     is all of them.
    ///   - precondition: A condition on the object's entity tag.
    ///   - chunkSize: The size of the chunks handed to `body`. The default is 1 MiB.
    ///   - body: Gets each chunk; the memory is valid only until it returns. What it throws stops the transfer and
    ///     is thrown again.
    /// - Returns: The object's description; ``S3ObjectInfo/size`` is the number of bytes handed to `body`.
    /// - Throws: `StorageError` as ``get(_:to:offset:range:precondition:)`` does, or what `body` threw.
    @discardableResult
    public func read(
        _ key: String, range: Range<Int64>? = nil, precondition: S3Precondition? = nil, chunkSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> S3ObjectInfo {
        try withoutActuallyEscaping(body) { body in
            let receiver = S3StreamReceiver(chunkSize: chunkSize, body: body)
            let info: S3ObjectInfo
            do {
                info = try read(key, sink: .stream(receiver), range: range, precondition: precondition).info
            } catch {
                throw receiver.failure ?? error
            }
            receiver.flush()
            if let failure = receiver.failure { throw failure }
            return info
        }
    }
}
