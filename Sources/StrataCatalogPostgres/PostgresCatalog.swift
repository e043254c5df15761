import Foundation
package import StrataCatalog
package import StrataCore
package import StrataPostgres
import StrataPostgresClient
import Synchronization

/// The catalog of a store that several machines share, on PostgreSQL: one row per key in the store's schema, and
/// PostgreSQL's advisory locks as the keys' locks.
///
/// ```
/// strata_catalog         key, tier, backend, rule, kind, content_type, size, modified, moving_from, moving_to
/// strata_catalog_changes a sequence: the change counter, bumped by the statement that makes each change
/// strata_catalog_meta    the format and its version
/// ```
///
/// Every lookup asks the server, so a reader sees every change any machine committed before it asked. A key's lock
/// is a session-level advisory lock on a hash of the schema and the key, held on one connection for as long as the
/// operation runs (the catalog calls it makes use that connection): a machine that dies holding it loses the
/// session, and the lock goes with it — no lease. Every key's lock also takes the store's lock shared, so that
/// ``withEveryKeyLock(_:)`` (a capture) can hold them all by taking it exclusively. Within this process, the
/// threads are ordered first by ``/StrataCatalog/CatalogLocks`` with no folder, as the file catalog orders them.
///
/// Moves follow the file catalog's protocol: the `intent` and the `set` that commits a move are each a committed
/// statement before the next step starts, so a machine killed mid-move leaves a row with `moving_to` set, which
/// any machine settles when it next writes or opens the store.
///
/// Nobody can tell cheaply whether another machine observes the store, so this catalog acts as if one always does
/// (``isObserved``): a write through a tier's own API is recorded even when it leaves the key where it was.
package final class PostgresCatalog: CatalogEngine {
    /// The server, database and schema.
    package let configuration: PostgresConfiguration
    /// Where the catalog lives, for messages: `postgresql://user@host:port/database#schema`.
    package let location: String
    /// The connections of lookups and changes made outside a key's lock.
    let pool: PostgresPool
    /// The connections key locks are held on, apart from ``pool`` so that holders (a long move keeps its connection
    /// for as long as it runs) never starve other threads' lookups. Its size never makes a holder wait: a holder
    /// holds one of this process's key stripes before it takes a connection, so there are at most as many holders
    /// as stripes, and a capture that holds every stripe besides.
    let lockPool: PostgresPool
    /// The connections this process's threads hold key locks on.
    let sessions = PostgresSessions()
    /// This process's threads, ordered before the server orders the processes.
    let locks = CatalogLocks(directory: nil)
    /// The advisory lock every key's lock takes shared and ``withEveryKeyLock(_:)`` exclusively.
    let storeLockKey: Int64
    /// The FNV-1a hash of `strata-catalog:<schema>:`, where every key's lock key starts.
    let keyLockSeed: UInt64
    /// The FNV-1a hash of `strata-catalog-fence:<schema>:`, where every key's fence starts.
    let fenceSeed: UInt64
    /// Counts the change counter's failed reads: each one answers a value no other read answers.
    let failedCounts = Atomic<UInt64>(0)

    /// Connects, and creates the catalog's tables in the configured schema (or checks them). The schema may hold
    /// other Strata tables (the records tier's).
    /// - Throws: ``/StrataCore/StorageError``: `.connectionFailed`, `.authenticationFailed`, `.notFound` for a missing
    ///   database, `.invalidArgument` for a bad schema name, `.unsupportedVersion` for a catalog written by a newer
    ///   Strata.
    package init(_ configuration: PostgresConfiguration) throws {
        do {
            try configuration.validate()
        } catch var error as StorageError {
            error.tier = nil
            throw error
        }
        self.configuration = configuration
        var client = configuration.client
        client.tier = nil
        pool = PostgresPool(client)
        client.poolSize = CatalogLocks.stripeCount + 1
        client.outlivesIdleTimeout = true
        lockPool = PostgresPool(client)
        storeLockKey = Int64(bitPattern: Self.fnv("strata-catalog-store:\(configuration.schema)".utf8))
        keyLockSeed = Self.fnv("strata-catalog:\(configuration.schema):".utf8)
        fenceSeed = Self.fnv("strata-catalog-fence:\(configuration.schema):".utf8)
        let server = try pool.with { connection -> String in
            try Self.prepareSchema(connection, configuration)
            return connection.location
        }
        location = server + "#" + configuration.schema
    }

    deinit {
        pool.drain()
        lockPool.drain()
    }

    /// Creates the schema and the catalog's tables unless they exist, under a transaction-level advisory lock so
    /// that machines opening the store at once create them once.
    static func prepareSchema(_ connection: PostgresConnection, _ configuration: PostgresConfiguration) throws {
        let lock = PostgresAdvisoryLock.key("strata-catalog-schema:\(configuration.schema)")
        try connection.transaction(operation: "open") {
            try connection.execute(
                "SELECT pg_advisory_xact_lock(\(lock)); CREATE SCHEMA IF NOT EXISTS \(configuration.quotedSchema)",
                operation: "open")
            let found = try connection.query(
                PostgresCatalogSQL.tablesQuery, [.text(configuration.schema)], operation: "open")
            if found.rowCount == 0 {
                try connection.execute(PostgresCatalogSQL.tables, operation: "create")
            } else {
                let version = try connection.query(PostgresCatalogSQL.formatQuery, operation: "open")
                let format = version.rowCount > 0 ? Int(version.text(0, 0)) ?? 0 : 0
                guard format <= PostgresCatalogSQL.formatVersion else {
                    throw StorageError(
                        .unsupportedVersion,
                        "the catalog has format version \(format); this program reads up to "
                            + "\(PostgresCatalogSQL.formatVersion)",
                        path: connection.location + "#" + configuration.schema,
                        recovery: "Open the store with the newer program that wrote it")
                }
            }
        }
    }

    /// 64 bits of FNV-1a.
    static func fnv(_ bytes: some Sequence<UInt8>, from seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The advisory lock key of `key`'s lock: the hash of `strata-catalog:<schema>:<key>`. Two keys may share one
    /// (then they wait for each other, which is harmless: locks are taken one key at a time, or in order).
    func lockKey(of key: String) -> Int64 {
        Int64(bitPattern: Self.fnv(key.utf8, from: keyLockSeed))
    }

    /// The advisory lock of `key`'s fence (``/StrataPostgresClient/PostgresFence/fence``): the hash of
    /// `strata-catalog-fence:<schema>:<key>`.
    func fenceKey(of key: String) -> Int64 {
        Int64(bitPattern: Self.fnv(key.utf8, from: fenceSeed))
    }

    /// Runs `body` on the connection the calling thread holds key locks on, or on one from the pool.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        if let held = sessions.current() { return try onHeldSession(held, body) }
        return try pool.with(body)
    }

    // MARK: Reads

    package func location(of key: String) throws -> StorageLocation? {
        try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(PostgresCatalogSQL.location, [.text(key)], operation: "find")
                guard result.rowCount > 0 else { return nil }
                return try Self.location(key: key, result, row: 0, column: 0, at: location)
            }
        }
    }

    /// Where `key` lives when no move of it is under way, read in one statement; `nil` when it has no location or a
    /// move is pending.
    func settledLocation(of key: String) throws -> StorageLocation? {
        try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(
                    PostgresCatalogSQL.settledLocation, [.text(key)], operation: "find")
                guard result.rowCount > 0 else { return nil }
                return try Self.location(key: key, result, row: 0, column: 0, at: location)
            }
        }
    }

    package func tier(of key: String) throws -> Tier? {
        try placementRow(of: key).tier
    }

    package func placement(of key: String) throws -> (tier: Tier?, changeCount: UInt64) {
        try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(PostgresCatalogSQL.tierAndCount, [.text(key)], operation: "find")
                let tier = result.isNull(0, 0) ? nil : try Self.tier(result.text(0, 0), at: location)
                return (tier, UInt64(result.text(0, 1)) ?? failedCount())
            }
        }
    }

    package func keyPlacement(of key: String) throws -> KeyPlacement {
        let row = try placementRow(of: key)
        return KeyPlacement(
            tier: row.tier, movingTo: row.intent?.to,
            isBeingChanged: locks.isLocked(key, stripe: CatalogLocks.stripe(of: key)))
    }

    package func intent(for key: String) throws -> CatalogIntent? {
        try placementRow(of: key).intent
    }

    /// Where the catalog places `key` and the move it is under.
    func placementRow(of key: String) throws -> (tier: Tier?, intent: CatalogIntent?) {
        try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(PostgresCatalogSQL.placement, [.text(key)], operation: "find")
                guard result.rowCount > 0 else { return (nil, nil) }
                let tier = result.isNull(0, 0) ? nil : try Self.tier(result.text(0, 0), at: location)
                return (tier, try Self.intent(key: key, result, row: 0, column: 1, at: location))
            }
        }
    }

    package func locations(prefix: String) throws -> [StorageLocation] {
        try withConnection { try locations(prefix: prefix, on: $0) }
    }

    /// ``locations(prefix:)`` read on `connection` (a capture's snapshot).
    func locations(prefix: String, on connection: PostgresConnection) throws -> [StorageLocation] {
        let result: PostgresResult
        if prefix.isEmpty {
            result = try connection.query(PostgresCatalogSQL.allLocations, operation: "list")
        } else if let bound = Self.upperBound(of: prefix) {
            result = try connection.query(
                PostgresCatalogSQL.locationsInRange, [.text(prefix), .text(bound)], operation: "list")
        } else {
            result = try connection.query(PostgresCatalogSQL.locations, [.text(prefix)], operation: "list")
        }
        return try (0..<result.rowCount).map { row in
            try Self.location(key: result.text(row, 0), result, row: row, column: 1, at: location)
        }
    }

    /// The least string greater than every string that starts with `prefix`, in the "C" collation's order (the
    /// order of UTF-8 bytes, which is the order of scalars): the prefix with its last scalar below U+10FFFF
    /// incremented (past the surrogates) and what follows it dropped. `nil` when every scalar is U+10FFFF.
    static func upperBound(of prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            guard last.value < 0x10_FFFF else { continue }
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            scalars.append(Unicode.Scalar(next)!)
            var bound = String.UnicodeScalarView()
            bound.append(contentsOf: scalars)
            return String(bound)
        }
        return nil
    }

    package var count: Int {
        get throws {
            try withConnection { connection in
                let result = try connection.query(PostgresCatalogSQL.count, operation: "count")
                return Int(result.text(0, 0)) ?? 0
            }
        }
    }

    package func unsettledKeys() throws -> [String] {
        try withConnection { connection in
            let result = try connection.query(PostgresCatalogSQL.intents, operation: "list moves")
            return (0..<result.rowCount).map { result.text($0, 0) }
        }
    }

    /// The server's change counter. A read that fails answers a value no read answers (the top bit set, and a count
    /// of failures), so that a reader comparing two counts never takes a failure for "nothing changed".
    package var changeCount: UInt64 {
        let count = try? withConnection { connection in
            try connection.query(PostgresCatalogSQL.changeCount, operation: "count changes").text(0, 0)
        }
        return count.flatMap { UInt64($0) } ?? failedCount()
    }

    func failedCount() -> UInt64 {
        1 << 63 | failedCounts.add(1, ordering: .relaxed).newValue
    }

    /// Runs `body`, naming `key` in the errors it throws.
    func keyed<T>(_ key: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw error.attributed(tier: nil, key: key)
        }
    }

    // MARK: Rows

    /// The location in the columns `tier, backend, rule, kind, content_type, size, modified` from `column` on.
    static func location(key: String, _ result: PostgresResult, row: Int, column: Int, at place: String) throws
        -> StorageLocation
    {
        let kind: DataKind?
        if result.isNull(row, column + 3) {
            kind = nil
        } else {
            guard let code = UInt8(result.text(row, column + 3)), let known = DataKind(catalogCode: code) else {
                throw damaged(key, "an unknown kind code \(result.text(row, column + 3))", at: place)
            }
            kind = known
        }
        return StorageLocation(
            key: key, tier: try tier(result.text(row, column), key: key, at: place),
            backend: result.text(row, column + 1),
            ruleID: result.text(row, column + 2), kind: kind,
            contentType: result.isNull(row, column + 4) ? nil : result.text(row, column + 4),
            size: Int(result.text(row, column + 5)) ?? 0,
            modified: Date(timeIntervalSince1970: Double(result.text(row, column + 6)) ?? 0))
    }

    /// The move in the columns `moving_from, moving_to` from `column` on, or `nil` when none is under way.
    static func intent(key: String, _ result: PostgresResult, row: Int, column: Int, at place: String) throws
        -> CatalogIntent?
    {
        guard !result.isNull(row, column + 1) else { return nil }
        let from = result.isNull(row, column) ? nil : try tier(result.text(row, column), key: key, at: place)
        return CatalogIntent(key: key, from: from, to: try tier(result.text(row, column + 1), key: key, at: place))
    }

    static func tier(_ text: String, key: String? = nil, at place: String) throws -> Tier {
        guard let code = UInt8(text), let tier = Tier(catalogCode: code) else {
            throw damaged(key, "an unknown tier code \(text)", at: place)
        }
        return tier
    }

    static func damaged(_ key: String?, _ what: String, at place: String) -> StorageError {
        StorageError(
            .corrupt, "the catalog table holds \(what)", key: key, path: place,
            recovery: "Something other than Strata wrote the strata_catalog table; correct or delete the row")
    }
}
