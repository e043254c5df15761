package import StrataCore
package import StrataPostgres
import StrataPostgresClient

// What ties a catalog on PostgreSQL to one store: the files location its keys' files are at, written by the first
// machine that opens the store and checked by every other, so that a root whose configuration names another files
// location (a typo on one machine) cannot drop the catalog's entries for files it does not find. And the other way:
// a store that is not declared shared must not open records in a schema that holds a shared store's catalog, beside
// it with a catalog of its own.
extension PostgresCatalog {
    /// Records `filesLocation` as the store's files location when none is recorded, else checks that it is the one.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` (tier files, attribute `url`) naming both locations
    ///   when they differ.
    package func bind(filesLocation: String) throws {
        let recorded = try pool.with { connection in
            try connection.query(PostgresCatalogSQL.bindFiles, [.text(filesLocation)], operation: "open").text(0, 0)
        }
        guard recorded == filesLocation else {
            var error = StorageError(
                .invalidArgument,
                "the shared catalog in \(location) belongs to a store whose files are at \(recorded); this root "
                    + "names \(filesLocation)", tier: .files,
                recovery: "Make the root's [files] url the store's (every machine's strata.conf names the same "
                    + "location), or give this store a schema of its own (strata_schema=)")
            error.attribute = "url"
            throw error
        }
    }

    /// Whether the schema of `configuration` holds a shared store's catalog.
    /// - Throws: ``/StrataCore/StorageError``: the server's errors.
    package static func holdsCatalog(_ configuration: PostgresConfiguration) throws -> Bool {
        var client = configuration.client
        client.tier = nil
        let connection = try PostgresConnection(client)
        defer { connection.close() }
        return try connection.query(
            PostgresCatalogSQL.tablesQuery, [.text(configuration.schema)], operation: "open"
        ).rowCount > 0
    }
}
