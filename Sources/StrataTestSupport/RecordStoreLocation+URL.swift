import Foundation

extension RecordStoreLocation {
    /// The test server's connection string naming this location's schema (`?strata_schema=`), for a PostgreSQL
    /// location: what `Storage(recordsURL:)`, `--url` and `STRATA_RECORDS_URL` take.
    public var postgresURL: String {
        (ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "") + "?strata_schema="
            + location.dropFirst("postgres:".count)
    }
}
