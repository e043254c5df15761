public import Foundation
import StrataCore

extension S3FileEngine {
    /// The whole object, or nil when there is none: one GET, from one version.
    public func read(_ key: String) throws -> Data? {
        try fetch(key)?.data
    }

    /// Streams an object, or `range` of it, to `body` in chunks of `chunkSize` bytes from one GET. A transfer cut
    /// short goes on with `If-Match` on the first answer's entity tag (`.conflict` if the object was replaced
    /// meanwhile), so every chunk comes from one version. A range reaching past the end is cut at the end; one
    /// starting at or past it reads nothing.
    /// - Returns: The number of bytes handed to `body`.
    /// - Throws: `.notFound` when there is no object, what `body` throws, or the S3 error.
    public func read(
        _ key: String, range: Range<Int64>?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        if let range {
            guard range.lowerBound >= 0 else {
                throw StorageError(
                    .invalidArgument, "a range cannot start before the file's first byte", tier: .files, key: key)
            }
            if range.isEmpty { return try requireObject(key, 0) }
        }
        do {
            return Int(try client.read(key, range: range, chunkSize: max(chunkSize, 1), body).size)
        } catch let error as StorageError where error.s3?.serviceCode == "InvalidRange" {
            // The range starts at or past the end (every range of an empty object does).
            return try requireObject(key, 0)
        }
    }

    /// `value` when the object exists.
    /// - Throws: `.notFound` when it does not.
    private func requireObject<T>(_ key: String, _ value: T) throws -> T {
        guard try client.head(key) != nil else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return value
    }
}
