import Foundation
import StrataCore
import StrataFiles
import Synchronization

/// A file engine over another that deletes chosen files the moment something first reads them: another program
/// deleting a file between a listing and its turn, made deterministic. Everything else goes straight through.
final class VanishingEngine: FileEngine {
    let inner: any FileEngine
    /// The keys still to delete on their first read.
    private let doomed: Mutex<Set<String>>

    init(_ inner: any FileEngine, vanishing keys: Set<String>) {
        self.inner = inner
        doomed = Mutex(keys)
    }

    /// Deletes `key` through the inner engine if it is doomed and still there.
    private func vanish(_ key: String) throws {
        if doomed.withLock({ $0.remove(key) }) != nil { _ = try inner.delete(key) }
    }

    var name: String { inner.name }
    var location: String { inner.location }
    var concurrencyGuarantee: String { inner.concurrencyGuarantee }
    var durability: Durability { inner.durability }
    var layout: [StorageLayoutEntry] { inner.layout }

    func write(_ key: String, _ body: (inout FileWriter) throws -> Void) throws { try inner.write(key, body) }
    func update(_ key: String, _ transform: (Data?) throws -> Data) throws { try inner.update(key, transform) }
    func append(_ data: Data, to key: String) throws { try inner.append(data, to: key) }

    func read(_ key: String) throws -> Data? {
        try vanish(key)
        return try inner.read(key)
    }

    func read(
        _ key: String, range: Range<Int64>?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        try vanish(key)
        return try inner.read(key, range: range, chunkSize: chunkSize, body)
    }

    func withReader<T>(_ key: String, _ body: (FileReader) throws -> T) throws -> T {
        try vanish(key)
        return try inner.withReader(key, body)
    }

    func exists(_ key: String) throws -> Bool { try inner.exists(key) }
    func delete(_ key: String) throws -> Bool { try inner.delete(key) }
    func deleteSecurely(_ key: String) throws -> Bool { try inner.deleteSecurely(key) }
    func move(_ source: String, to destination: String) throws { try inner.move(source, to: destination) }
    func copy(_ source: String, to destination: String) throws { try inner.copy(source, to: destination) }
    func list(prefix: String, recursive: Bool) throws -> [String] {
        try inner.list(prefix: prefix, recursive: recursive)
    }
    func metadata(_ key: String) throws -> FileMetadata? { try inner.metadata(key) }
    func verify(prefix: String) throws -> [FileProblem] { try inner.verify(prefix: prefix) }
    func removeLeftovers(olderThan age: TimeInterval) throws -> Int { try inner.removeLeftovers(olderThan: age) }
}
