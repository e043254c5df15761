import StrataCore
import StrataDefaultsPostgres
import StrataPostgres
import StrataSecretsPostgres

/// The statements of ``PostgresCatalog``: its tables, and one statement per catalog change, each bumping the change
/// counter in the statement that makes the change (a data-modifying `WITH` runs whether or not it is read), so that
/// a change and its count commit together.
enum PostgresCatalogSQL {
    /// The format of the catalog's tables; a schema with a newer one is refused.
    static let formatVersion = 1

    /// The catalog's tables, in the schema first on the search path: one row per key — where it lives (`tier` and
    /// the rest, `NULL` while only a move into the tier is under way) and the move under way (`moving_to`, `NULL`
    /// when none) — and the change counter, a sequence: it moves without a row lock, so writers of different keys
    /// never wait for each other on it. Tiers and kinds are the file catalog's codes.
    static let tables = """
        CREATE TABLE strata_catalog_meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);
        INSERT INTO strata_catalog_meta (key, value) VALUES ('format', 'strata-catalog'), ('format_version', '\(formatVersion)');
        CREATE TABLE strata_catalog (
            key text COLLATE "C" PRIMARY KEY,
            tier smallint, backend text, rule text, kind smallint, content_type text,
            size bigint NOT NULL DEFAULT 0, modified double precision NOT NULL DEFAULT 0,
            moving_from smallint, moving_to smallint,
            CHECK (tier IS NOT NULL OR moving_to IS NOT NULL),
            CHECK ((tier IS NULL) = (backend IS NULL) AND (tier IS NULL) = (rule IS NULL)));
        CREATE INDEX strata_catalog_moving ON strata_catalog (key) WHERE moving_to IS NOT NULL;
        CREATE SEQUENCE strata_catalog_changes;
        """

    /// Records `$2` as the store's setting `$1` (a ``SharedSetting``) unless one is recorded; the one recorded. The
    /// conflict's no-op update returns the row that won, also when another machine's insert committed while this
    /// one waited (a separate `SELECT` would read the statement's older snapshot, and find nothing).
    static let bindSetting = """
        INSERT INTO strata_catalog_meta AS m (key, value) VALUES ($1::text, $2::text)
        ON CONFLICT (key) DO UPDATE SET value = m.value
        RETURNING value
        """

    static let formatQuery = "SELECT value FROM strata_catalog_meta WHERE key = 'format_version'"

    static let tablesQuery =
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relname = 'strata_catalog_meta'"

    // MARK: Reads

    /// The columns of a location, after the key: `tier, backend, rule, kind, content_type, size, modified`.
    static let locationColumns = "tier, backend, rule, kind, content_type, size, modified"

    static let location =
        "SELECT \(locationColumns) FROM strata_catalog WHERE key = $1::text AND tier IS NOT NULL"

    static let settledLocation =
        "SELECT \(locationColumns) FROM strata_catalog WHERE key = $1::text AND tier IS NOT NULL AND moving_to IS NULL"

    static let placement = "SELECT tier, moving_from, moving_to FROM strata_catalog WHERE key = $1::text"

    /// The key's tier and the change counter in one statement. The counter is read after the statement's snapshot
    /// was taken, so it counts at least every change the tier reflects.
    static let tierAndCount = "SELECT (SELECT tier FROM strata_catalog WHERE key = $1::text), (\(changeCount))"

    /// ``tierAndCount``, then the key's value when it is placed in a tier whose values are in the catalog's schema:
    /// the records' (when `records`) or the suite's (when `defaults`, the suite in `$2`) as one column, `NULL` for
    /// any other tier; then, when `secrets`, the keyring's read of the key's item
    /// (`PostgresSecrets.readExpressions`), each column `NULL` unless the key is placed in secrets. The catalog row
    /// and the value in one snapshot, one round trip.
    ///
    /// The row is joined, not a scalar subquery: the planner inlines a subquery's column into every place that names
    /// it, and the key's row would be looked up once for the select list and again for each arm of each `CASE`.
    /// The values' subqueries run only for the arm taken.
    static func tierCountAndValue(records: Bool, defaults: Bool, secrets: Bool) -> String {
        readStatements[(records ? 1 : 0) | (defaults ? 2 : 0) | (secrets ? 4 : 0)]
    }

    /// The statements of ``tierCountAndValue(records:defaults:secrets:)``, by `records | defaults << 1 | secrets << 2`.
    private static let readStatements = (0..<8).map { (choice: Int) -> String in
        var values: [(tier: Tier, value: String)] = []
        if choice & 1 != 0 { values.append((.records, PostgresKeyValueTable.value(ofKeyIn: "$1"))) }
        if choice & 2 != 0 { values.append((.defaults, PostgresDefaults.value(ofKeyIn: "$1", suiteIn: "$2"))) }
        let cases = values.map { "WHEN \($0.tier.catalogCode) THEN \($0.value)" }.joined(separator: " ")
        var columns = ["placed.tier", "(\(changeCount))", values.isEmpty ? "NULL" : "CASE placed.tier \(cases) END"]
        if choice & 4 != 0 {
            let first = choice & 2 != 0 ? 3 : 2
            columns += PostgresSecrets.readExpressions(
                keyring: "$\(first)", held: "$\(first + 1)", name: "$\(first + 2)"
            )
            .map { "CASE placed.tier WHEN \(Tier.secrets.catalogCode) THEN \($0) END" }
        }
        return """
            SELECT \(columns.joined(separator: ", "))
            FROM (VALUES (1)) AS one (n) LEFT JOIN strata_catalog AS placed ON placed.key = $1::text
            """
    }

    /// The change counter: the sequence's last value once it was ever taken, 0 before. (A new sequence answers
    /// `last_value` 1 before its first `nextval` as after it, so the first change would not move a bare
    /// `last_value`.)
    static let changeCount = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM strata_catalog_changes"

    /// The keys from the prefix up to its upper bound (``PostgresCatalog/upperBound(of:)``): an index range.
    static let locationsInRange =
        "SELECT key, \(locationColumns) FROM strata_catalog WHERE tier IS NOT NULL AND key >= $1::text AND key < $2::text ORDER BY key"

    /// The keys of a prefix that has no upper bound (every scalar of it is U+10FFFF).
    static let locations =
        "SELECT key, \(locationColumns) FROM strata_catalog WHERE tier IS NOT NULL AND key >= $1::text AND starts_with(key, $1::text) ORDER BY key"

    static let allLocations = "SELECT key, \(locationColumns) FROM strata_catalog WHERE tier IS NOT NULL ORDER BY key"

    static let count = "SELECT count(*) FROM strata_catalog WHERE tier IS NOT NULL"

    static let intents =
        "SELECT key, moving_from, moving_to FROM strata_catalog WHERE moving_to IS NOT NULL ORDER BY key"

    // MARK: Changes

    static let set = """
        WITH bump AS (SELECT nextval('strata_catalog_changes'))
        INSERT INTO strata_catalog AS c (key, tier, backend, rule, kind, content_type, size, modified)
        SELECT $1::text, $2::int2, $3::text, $4::text, $5::int2, $6::text, $7::int8, $8::float8 FROM bump
        ON CONFLICT (key) DO UPDATE SET tier = excluded.tier, backend = excluded.backend, rule = excluded.rule,
            kind = excluded.kind, content_type = excluded.content_type, size = excluded.size, modified = excluded.modified
        """

    /// A removal drops the row, or only its placement while a move of the key is under way.
    static let remove = """
        WITH bump AS (SELECT nextval('strata_catalog_changes') AS n),
        gone AS (DELETE FROM strata_catalog WHERE key = $1::text AND moving_to IS NULL),
        kept AS (UPDATE strata_catalog SET tier = NULL, backend = NULL, rule = NULL, kind = NULL, content_type = NULL,
            size = 0 WHERE key = $1::text AND moving_to IS NOT NULL)
        SELECT n FROM bump
        """

    static let intent = """
        WITH bump AS (SELECT nextval('strata_catalog_changes'))
        INSERT INTO strata_catalog AS c (key, moving_from, moving_to) SELECT $1::text, $2::int2, $3::int2 FROM bump
        ON CONFLICT (key) DO UPDATE SET moving_from = excluded.moving_from, moving_to = excluded.moving_to
        """

    /// Settling drops the move, and the row with it when the key has no placement.
    static let settle = """
        WITH bump AS (SELECT nextval('strata_catalog_changes') AS n),
        gone AS (DELETE FROM strata_catalog WHERE key = $1::text AND tier IS NULL),
        kept AS (UPDATE strata_catalog SET moving_from = NULL, moving_to = NULL WHERE key = $1::text AND tier IS NOT NULL)
        SELECT n FROM bump
        """

    /// A write through a tier's own API: the key placed in the tier with no move is recorded again, later; a key
    /// with no row is recorded there, found; any other is left to whoever moves it.
    static let rewrite = """
        WITH bump AS (SELECT nextval('strata_catalog_changes'))
        INSERT INTO strata_catalog AS c (key, tier, backend, rule, size, modified)
        SELECT $1::text, $2::int2, $3::text, 'found', 0, $4::float8 FROM bump
        ON CONFLICT (key) DO UPDATE SET modified = greatest(excluded.modified, c.modified + 0.000001)
            WHERE c.tier = excluded.tier AND c.moving_to IS NULL
        """

    // MARK: Locks

    /// A key's lock: the store's lock shared (so that a capture can hold every key), then the key's, then the key's
    /// fence for an instant, which waits for the fenced writes of the key's last holder to finish
    /// (``/StrataPostgresClient/PostgresFence``).
    static let lockKey = """
        SELECT pg_advisory_lock_shared($1::int8), pg_advisory_lock($2::int8), pg_advisory_lock($3::int8),
            pg_advisory_unlock($3::int8)
        """
    /// The wait for a key's fenced writes, once its lock is taken (``tryLockKey``).
    static let waitForFencedWrites = "SELECT pg_advisory_lock($1::int8), pg_advisory_unlock($1::int8)"
    static let unlockKey = "SELECT pg_advisory_unlock($2::int8), pg_advisory_unlock_shared($1::int8)"
    /// Both locks if both are free now; the store's lock is given back when the key's is not free.
    static let tryLockKey = """
        SELECT s, s AND pg_try_advisory_lock($2::int8) FROM (SELECT pg_try_advisory_lock_shared($1::int8) AS s) AS t
        """
    static let unlockStore = "SELECT pg_advisory_unlock_shared($1::int8)"
    static let lockEveryKey = "SELECT pg_advisory_lock($1::int8)"
    static let unlockEveryKey = "SELECT pg_advisory_unlock($1::int8)"
    static let lockOne = "SELECT pg_advisory_lock($1::int8)"
    static let unlockOne = "SELECT pg_advisory_unlock($1::int8)"
    static let lockStoreShared = "SELECT pg_advisory_lock_shared($1::int8)"
}
