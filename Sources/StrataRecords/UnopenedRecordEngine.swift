package import StrataCore

/// The engine of a record store that could not be opened (a PostgreSQL server out of reach, a database that cannot
/// be read): it keeps the error that kept it closed and throws it from every call. `Storage` hands such a store out
/// from its non-throwing ``/Strata/Storage/records`` so that the failure is reported on the store's first use, with
/// the same typed error the opening threw.
package struct UnopenedRecordEngine: RecordEngine, RecordKeyValueTable {
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

    package var keyValue: any RecordKeyValueTable { self }

    package func schemaVersion() throws -> Int { throw error }
    package func migrate(_ body: (any RecordSession) throws -> Void) throws { throw error }
    package func collectionNames() throws -> Set<String> { throw error }
    package func createCollection(_ name: String) throws { throw error }
    package func createIndex(_ index: Index, in collection: String) throws { throw error }
    package func write<T>(_ body: (any RecordSession) throws -> (T, Set<String>)) throws -> (T, Set<String>) {
        throw error
    }
    package func read<T>(snapshot: Bool, _ body: (any RecordSession) throws -> T) throws -> T { throw error }
    package func watchExternalCommits(_ handler: @escaping @Sendable (String?) -> Void) -> @Sendable () -> Void {
        {}
    }
    package func verify() throws -> [String] { throw error }
    package func queryPlan(for query: Query, in collection: String) throws -> [String] { throw error }

    package func put(_ value: [UInt8], for key: String, modified: Double) throws { throw error }
    package func value(for key: String) throws -> [UInt8]? { throw error }
    package func remove(_ key: String) throws -> Bool { throw error }
    package func removeSecurely(_ key: String) throws -> Bool { throw error }
    package func keys() throws -> [String] { throw error }
    package func sizeAndModified(for key: String) throws -> (size: Int, modified: Double)? { throw error }
}
