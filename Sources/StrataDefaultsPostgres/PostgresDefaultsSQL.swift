import StrataPostgresClient

/// The statements of ``PostgresDefaults``, in the store's schema (each connection's search path).
///
/// ```
/// strata_defaults       suite, key ("C" collation), value (the value's bplist00 bytes), size (what the entry
///                       counts against the suite's budget), modified: one row per set key
/// ```
enum PostgresDefaultsSQL {
    static let table = """
        CREATE TABLE IF NOT EXISTS strata_defaults (
            suite text COLLATE "C" NOT NULL,
            key text COLLATE "C" NOT NULL,
            value bytea NOT NULL,
            size int8 NOT NULL,
            modified float8 NOT NULL,
            PRIMARY KEY (suite, key))
        """

    /// The value of `$2` in suite `$1`, as hex text.
    static let value = "SELECT encode(value, 'hex') FROM strata_defaults WHERE suite = $1::text AND key = $2::text"

    /// Every key and value of suite `$1`, in key order.
    static let all = "SELECT key, encode(value, 'hex') FROM strata_defaults WHERE suite = $1::text ORDER BY key"

    /// Every suite, key and value (as hex), in suite and key order: a capture, in one snapshot.
    static let everySuite = "SELECT suite, key, encode(value, 'hex') FROM strata_defaults ORDER BY suite, key"

    /// Every key of suite `$1`, in byte order.
    static let keys = "SELECT key FROM strata_defaults WHERE suite = $1::text ORDER BY key"

    /// The size and modification time of `$2` in suite `$1`.
    static let metadata =
        "SELECT octet_length(value), modified FROM strata_defaults WHERE suite = $1::text AND key = $2::text"

    /// The suite's lock (`$1`), taken for the transaction: writers of one suite go one at a time, so each checks
    /// the budget against every entry committed before it.
    static let lockSuite = "SELECT pg_advisory_xact_lock($1::int8)"

    /// The same, after the fence check of the key's lock in a shared catalog (`$1` the suite's lock, then the fence's
    /// parameters): one row, whose first column says whether the key's lock is still held.
    static let lockSuiteFenced = """
        WITH \(fenceCheck)
        SELECT held, pg_advisory_xact_lock($1::int8) IS NULL FROM fence
        """

    private static let fenceCheck = PostgresFence.check(from: 2)

    /// Sets `$2` in suite `$1` to the bytes `$3` (counted `$4` against the budget `$8`, modified at `$5`) and tells
    /// the listeners on channel `$6` with payload `$7`, unless the suite would grow over its budget (a set that
    /// does not grow the entry is always made). One row: the suite's size with the new entry, and whether it was
    /// written.
    static let upsert = """
        WITH used AS (
            SELECT coalesce(sum(size) FILTER (WHERE key <> $2::text), 0) AS others,
                coalesce(sum(size) FILTER (WHERE key = $2::text), 0) AS old
            FROM strata_defaults WHERE suite = $1::text),
        written AS (
            INSERT INTO strata_defaults (suite, key, value, size, modified)
                SELECT $1::text, $2::text, $3::bytea, $4::int8, $5::float8 FROM used
                WHERE others + $4::int8 <= $8::int8 OR $4::int8 <= old
                ON CONFLICT (suite, key) DO UPDATE
                    SET value = excluded.value, size = excluded.size, modified = excluded.modified
                RETURNING 1)
        SELECT (SELECT others + $4::int8 FROM used), (SELECT count(*) FROM written),
            (SELECT pg_notify($6::text, $7::text) FROM written)
        """

    /// Removes `$2` from suite `$1`, telling the listeners on channel `$3` with payload `$4`: one row when it was
    /// there.
    static let delete = """
        WITH gone AS (DELETE FROM strata_defaults WHERE suite = $1::text AND key = $2::text RETURNING 1)
        SELECT pg_notify($3::text, $4::text) FROM gone
        """
}
