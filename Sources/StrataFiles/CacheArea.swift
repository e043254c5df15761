public import Foundation
import StrataCore

/// A size-limited area of the file store for data that can be thrown away: thumbnails, downloaded copies.
///
/// Eviction happens only under the area's prefix, never elsewhere in the store: expired files first, then the
/// least recently used (by stores and reads through the area) until the area fits its byte limit. Every eviction is
/// reported to the caller.
///
/// Uses are what the engine records (``FileEngine/markUsed(_:)``): the POSIX engine sets the file's access time,
/// seen by every process; the S3 engine keeps the uses in the process that made them (S3 has no access time, and
/// setting one would cost a request per read), merged with the objects' modification dates, so another process
/// orders by its own uses and by writes.
///
/// ```swift
/// let thumbnails = try files.cacheArea(prefix: "cache/thumbnails", byteLimit: 50 << 20, maximumAge: 7 * 86_400)
/// let evicted = try thumbnails.put(png, for: "photo-42.png")
/// let hit = try thumbnails.get("photo-42.png")          // nil when absent or expired
/// ```
public struct CacheArea: Sendable {
    /// Why a file left the cache.
    public enum EvictionReason: String, Sendable, Hashable {
        case expired, overLimit = "over-limit"
    }

    /// A file the cache removed.
    public struct Eviction: Sendable, Hashable {
        public var key: String
        public var size: Int
        public var reason: EvictionReason
    }

    public let store: FileStore
    /// The folder key the area owns.
    public let prefix: String
    /// The most bytes the area keeps.
    public let byteLimit: Int
    /// How long a file lives, in seconds, or `nil` for no expiry.
    public let maximumAge: TimeInterval?

    func key(_ name: String) -> String { prefix + "/" + name }

    /// Stores a file in the area, then evicts what the limits require (never the file just stored, unless it
    /// alone is over the limit).
    /// - Returns: What was evicted.
    @discardableResult
    public func put(_ data: Data, for name: String) throws -> [Eviction] {
        try store.write(data, to: key(name))
        touch(key(name))
        return try enforce(keeping: key(name))
    }

    /// A file of the area, or `nil` when it is absent or expired (an expired file is evicted). A hit counts as
    /// a use for least-recently-used eviction.
    public func get(_ name: String) throws -> Data? {
        let key = key(name)
        guard let metadata = try store.metadata(key) else { return nil }
        if let maximumAge, Date().timeIntervalSince(metadata.modificationDate) > maximumAge {
            try store.delete(key)
            return nil
        }
        let data = try store.readIfPresent(key)
        touch(key)
        return data
    }

    /// Removes a file from the area.
    @discardableResult
    public func remove(_ name: String) throws -> Bool { try store.delete(key(name)) }

    /// The area's files and their total size.
    public func usage() throws -> (files: Int, bytes: Int) {
        let metadata = try store.list(prefix: prefix + "/").compactMap { try store.metadata($0) }
        return (metadata.count, metadata.reduce(0) { $0 + $1.size })
    }

    /// Evicts expired files, then least recently used ones until the area fits its limit.
    @discardableResult
    public func enforce(keeping kept: String? = nil) throws -> [Eviction] {
        var files = try store.list(prefix: prefix + "/").compactMap { try store.metadata($0) }
        var evictions: [Eviction] = []
        if let maximumAge {
            let now = Date()
            for file in files where now.timeIntervalSince(file.modificationDate) > maximumAge && file.key != kept {
                if try store.delete(file.key) {
                    evictions.append(Eviction(key: file.key, size: file.size, reason: .expired))
                }
            }
            files.removeAll { file in evictions.contains { $0.key == file.key } }
        }
        var total = files.reduce(0) { $0 + $1.size }
        let order = files.sorted { ($0.key == kept ? 1 : 0, $0.accessDate) < ($1.key == kept ? 1 : 0, $1.accessDate) }
        for file in order where total > byteLimit {
            if try store.delete(file.key) {
                evictions.append(Eviction(key: file.key, size: file.size, reason: .overLimit))
                total -= file.size
            }
        }
        return evictions
    }

    /// Marks a file used now (``FileEngine/markUsed(_:)``): its access time on the POSIX engine, the engine's
    /// record of this process's uses on S3; on an engine that records nothing, the order is the order of writes.
    func touch(_ key: String) {
        store.engine.markUsed(key)
    }
}

extension FileStore {
    /// Declares a cache area over a folder of the store.
    /// - Parameters:
    ///   - prefix: The folder key the area owns (for example `cache/thumbnails`).
    ///   - byteLimit: The most bytes it keeps.
    ///   - maximumAge: How long a file lives, in seconds; `nil` for no expiry.
    public func cacheArea(prefix: String, byteLimit: Int, maximumAge: TimeInterval? = nil) throws -> CacheArea {
        try StoragePaths.validateKey(prefix)
        guard byteLimit > 0 else {
            throw StorageError(.invalidArgument, "a cache area needs a positive byte limit", tier: .files, key: prefix)
        }
        return CacheArea(store: self, prefix: prefix, byteLimit: byteLimit, maximumAge: maximumAge)
    }
}
