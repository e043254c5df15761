import StrataPostgresClient

/// The statements of ``PostgresSecrets``, in the store's schema (each connection's search path).
///
/// ```
/// strata_keyrings   keyring ("C" collation), keyring_file (the bytes of a keyring.json: the data and name keys
///                   wrapped under the machines' key), manifest (the bytes of an items.manifest: every item's
///                   generation and the manifest's sequence number, tagged under the data key), sequence (a copy of
///                   the manifest's sequence number, in clear: what a reader compares with the manifest it holds)
/// strata_secrets    keyring, name (the item's file name: a keyed hash of service and account), item (the bytes of
///                   an item file: attributes and value sealed under the data key, bound to keyring and name)
/// ```
/// Every byte on the server is one a keyring folder holds; nothing in clear but the keyring's name.
enum PostgresSecretsSQL {
    static let tables = """
        CREATE TABLE IF NOT EXISTS strata_keyrings (
            keyring text COLLATE "C" PRIMARY KEY,
            keyring_file bytea NOT NULL,
            manifest bytea NOT NULL,
            sequence int8 NOT NULL);
        CREATE TABLE IF NOT EXISTS strata_secrets (
            keyring text COLLATE "C" NOT NULL,
            name text COLLATE "C" NOT NULL,
            item bytea NOT NULL,
            PRIMARY KEY (keyring, name))
        """

    /// Creates keyring `$1` with the keyring file `$2` and the empty manifest `$3`, unless it exists, or item rows
    /// of its name are there without it (what a lost keyring left: a new one would hide them).
    static let create = """
        INSERT INTO strata_keyrings (keyring, keyring_file, manifest, sequence)
            SELECT $1::text, $2::bytea, $3::bytea, 0
            WHERE NOT EXISTS (SELECT 1 FROM strata_secrets WHERE keyring = $1::text)
            ON CONFLICT (keyring) DO NOTHING
        """

    /// Creates keyring `$1` as a keyring folder holds it — keyring file `$2`, manifest `$3` of sequence number `$4` —
    /// unless it exists or item rows of its name are there: a load (``insertItem`` then adds its items).
    static let load = """
        INSERT INTO strata_keyrings (keyring, keyring_file, manifest, sequence)
            SELECT $1::text, $2::bytea, $3::bytea, $4::int8
            WHERE NOT EXISTS (SELECT 1 FROM strata_secrets WHERE keyring = $1::text)
            ON CONFLICT (keyring) DO NOTHING
        """

    /// Adds the item `$2` (bytes `$3`) of keyring `$1`: a load.
    static let insertItem = "INSERT INTO strata_secrets (keyring, name, item) VALUES ($1::text, $2::text, $3::bytea)"

    /// How many item rows keyring `$1` has.
    static let itemCount = "SELECT count(*) FROM strata_secrets WHERE keyring = $1::text"

    /// The keyring `$1`'s sequence number and, when it is not `$2` (the one the reader holds the manifest of), its
    /// keyring file and manifest as hex.
    private static let keyringColumns = """
        SELECT sequence, CASE WHEN sequence <> $2::int8 THEN encode(keyring_file, 'hex') END,
            CASE WHEN sequence <> $2::int8 THEN encode(manifest, 'hex') END
        """

    /// ``keyringColumns`` and the item `$3` of keyring `$1` as hex (`NULL` when there is none), in one snapshot: a
    /// read. No row when the keyring does not exist.
    static let read =
        keyringColumns + """
            , (SELECT encode(item, 'hex') FROM strata_secrets WHERE keyring = $1::text AND name = $3::text)
            FROM strata_keyrings WHERE keyring = $1::text
            """

    /// ``read``'s four columns as expressions for another engine's statement on the same schema, with the keyring,
    /// the sequence number held and the item's row name in that statement's parameters `keyring`, `held` and `name`
    /// (such as `$3`): each `NULL` when the keyring does not exist.
    static func readExpressions(keyring: String, held: String, name: String) -> [String] {
        let row = "FROM strata_keyrings WHERE keyring = \(keyring)::text"
        return [
            "(SELECT sequence \(row))",
            "(SELECT CASE WHEN sequence <> \(held)::int8 THEN encode(keyring_file, 'hex') END \(row))",
            "(SELECT CASE WHEN sequence <> \(held)::int8 THEN encode(manifest, 'hex') END \(row))",
            "(SELECT encode(item, 'hex') FROM strata_secrets WHERE keyring = \(keyring)::text AND name = \(name)::text)",
        ]
    }

    /// ``keyringColumns`` and every item of keyring `$1` (name, hex), in one snapshot: one row per item, or one
    /// row of `NULL` item when there are none; no row when the keyring does not exist.
    static let everyItem =
        keyringColumns + """
            , s.name, encode(s.item, 'hex')
            FROM strata_keyrings k LEFT JOIN strata_secrets s ON s.keyring = k.keyring
            WHERE k.keyring = $1::text ORDER BY s.name
            """

    /// ``keyringColumns``, locking keyring `$1`'s row for the transaction: every writer of the keyring, on any
    /// machine, goes one at a time.
    static let lock = keyringColumns + " FROM strata_keyrings WHERE keyring = $1::text FOR UPDATE"

    /// Whether the key's lock in a catalog on this server is still held (the fence's parameters `$1`…`$3`).
    static let fence = "WITH \(PostgresFence.check(from: 1)) SELECT held FROM fence"

    /// The item `$2` of keyring `$1` as hex: read after ``lock`` (a statement of its own, so it sees every write
    /// committed before the lock was granted).
    static let item = "SELECT encode(item, 'hex') FROM strata_secrets WHERE keyring = $1::text AND name = $2::text"

    /// Every item of keyring `$1` (name, hex), after ``lock``.
    static let items = "SELECT name, encode(item, 'hex') FROM strata_secrets WHERE keyring = $1::text ORDER BY name"

    /// Writes the item `$2` of keyring `$1` (bytes `$3`) and the manifest `$4` of sequence number `$5`.
    static let put = """
        WITH put AS (
            INSERT INTO strata_secrets (keyring, name, item) VALUES ($1::text, $2::text, $3::bytea)
                ON CONFLICT (keyring, name) DO UPDATE SET item = excluded.item)
        UPDATE strata_keyrings SET manifest = $4::bytea, sequence = $5::int8 WHERE keyring = $1::text
        """

    /// Removes the item `$2` of keyring `$1` and writes the manifest `$3` of sequence number `$4`.
    static let remove = """
        WITH gone AS (DELETE FROM strata_secrets WHERE keyring = $1::text AND name = $2::text)
        UPDATE strata_keyrings SET manifest = $3::bytea, sequence = $4::int8 WHERE keyring = $1::text
        """

    /// Replaces the item `$2` of keyring `$1` with `$3` (a rotation re-seals it).
    static let reseal = "UPDATE strata_secrets SET item = $3::bytea WHERE keyring = $1::text AND name = $2::text"

    /// Replaces keyring `$1`'s keyring file (`$2`) and manifest (`$3`, of sequence number `$4`).
    static let rekey = """
        UPDATE strata_keyrings SET keyring_file = $2::bytea, manifest = $3::bytea, sequence = $4::int8
        WHERE keyring = $1::text
        """

    /// Every keyring (name, keyring file, manifest, as hex): the first statement of a capture.
    static let everyKeyring = """
        SELECT keyring, encode(keyring_file, 'hex'), encode(manifest, 'hex') FROM strata_keyrings ORDER BY keyring
        """

    /// Every item of every keyring (keyring, name, hex): the second statement of a capture, in the same snapshot.
    static let everyKeyringItem = """
        SELECT keyring, name, encode(item, 'hex') FROM strata_secrets ORDER BY keyring, name
        """
}
