package import Foundation
package import StrataCore

/// The engine of a file store that could not be opened (a folder that cannot be created, a bucket whose location is
/// malformed): it keeps the error that kept it closed and throws it from every call. `Storage` hands such a store
/// out from its non-throwing ``/Strata/Storage/files`` so that the failure is reported on the store's first use,
/// with the same typed error the opening threw.
package struct UnopenedFileEngine: FileEngine {
    package let name: String
    package let location: String
    /// Why the engine could not be opened.
    package let error: StorageError

    /// An engine named `name` at `location` that fails every call with `error`.
    package init(name: String, location: String, error: StorageError) {
        self.name = name
        self.location = location
        self.error = error
    }

    package var concurrencyGuarantee: String { "none: the engine could not be opened" }
    package var durability: Durability { .durable }
    package var layout: [StorageLayoutEntry] { [] }

    package func write(_ key: String, _ body: (inout FileWriter) throws -> Void) throws { throw error }
    package func update(_ key: String, _ transform: (Data?) throws -> Data) throws { throw error }
    package func append(_ data: Data, to key: String) throws { throw error }
    package func read(_ key: String) throws -> Data? { throw error }
    package func read(
        _ key: String, range: Range<Int64>?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int { throw error }
    package func withReader<T>(_ key: String, _ body: (FileReader) throws -> T) throws -> T { throw error }
    package func exists(_ key: String) throws -> Bool { throw error }
    package func delete(_ key: String) throws -> Bool { throw error }
    package func deleteSecurely(_ key: String) throws -> Bool { throw error }
    package func move(_ source: String, to destination: String) throws { throw error }
    package func copy(_ source: String, to destination: String) throws { throw error }
    package func list(prefix: String, recursive: Bool) throws -> [String] { throw error }
    package func metadata(_ key: String) throws -> FileMetadata? { throw error }
    package func verify(prefix: String) throws -> [FileProblem] { throw error }
    package func removeLeftovers(olderThan age: TimeInterval) throws -> Int { throw error }
}
