package import StrataCore
import StrataPostgresClient

// What ties a catalog on PostgreSQL to one store: the files location its keys' files are at, written by the first
// machine that opens the store and checked by every other, so that a root whose configuration names another files
// location (a typo on one machine) cannot drop the catalog's entries for files it does not find.
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
}
