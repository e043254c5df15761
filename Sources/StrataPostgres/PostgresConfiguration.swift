public import Foundation
import StrataCore
import StrataRecords

/// Where and how a ``PostgresRecordEngine`` connects. A `Sendable` struct of `var`s.
///
/// The connection string is libpq's, in either form — `postgresql://user:password@host:5432/app?sslmode=verify-full`
/// or `host=db.internal dbname=app sslmode=require` — so TLS (`sslmode`, `sslrootcert`, `sslcert`, …),
/// passwords, `connect_timeout` and several hosts work as libpq documents them. What the string leaves out,
/// libpq takes from its environment variables (`PGHOST`, `PGUSER`, `PGPASSWORD`, `PGSSLMODE`, …) and from
/// `~/.pgpass`. In URI form, Strata reads one parameter of its own, `strata_schema`, and passes the rest on.
public struct PostgresConfiguration: Sendable {
    /// The libpq connection string. Empty means libpq's defaults and environment variables alone.
    public var connectionString: String
    /// The PostgreSQL schema that holds the store's tables: one store per schema, several stores per
    /// database. Letters, digits and `_`, at most 48 bytes. The default is `strata`.
    public var schema: String
    /// How many connections the pool opens at most (opened as needed, reused). The default is 8.
    public var poolSize: Int
    /// How many times ``RecordStore/write(_:)`` runs a transaction that the server rolled back for a
    /// serialization failure or a deadlock before reporting `.conflict`. The default is 20.
    public var maximumTransactionAttempts: Int
    /// How long a statement waits for a row lock held by another transaction before `.lockTimeout`
    /// (PostgreSQL's `lock_timeout`). The default is 10 000 ms.
    public var lockTimeoutMilliseconds: Int

    /// The environment variable ``init(environment:)`` reads the connection string from.
    public static let urlVariable = "STRATA_RECORDS_URL"

    /// Creates a configuration.
    /// - Parameters:
    ///   - connectionString: libpq's connection string; in URI form a `strata_schema` parameter sets
    ///     ``schema`` (and is not passed to libpq).
    ///   - schema: The schema, when the connection string names none. The default is `strata`.
    public init(
        connectionString: String, schema: String? = nil, poolSize: Int = 8, maximumTransactionAttempts: Int = 20,
        lockTimeoutMilliseconds: Int = 10_000
    ) {
        let (cleaned, named) = Self.extractSchema(from: connectionString)
        self.connectionString = cleaned
        self.schema = schema ?? named ?? "strata"
        self.poolSize = poolSize
        self.maximumTransactionAttempts = maximumTransactionAttempts
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
    }

    /// The configuration in `STRATA_RECORDS_URL`, or `nil` when it is unset or not a `postgres://` /
    /// `postgresql://` URI.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let url = environment[Self.urlVariable], Self.isPostgresURL(url) else { return nil }
        self.init(connectionString: url)
    }

    /// Whether a string is a PostgreSQL connection URI.
    public static func isPostgresURL(_ string: String) -> Bool {
        string.hasPrefix("postgresql://") || string.hasPrefix("postgres://")
    }

    /// The connection string with any password replaced by `***`, for messages.
    public var redactedConnectionString: String {
        var text = connectionString
        if Self.isPostgresURL(text), let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            if let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
            if let query = text.firstIndex(of: "?") {
                let parts = text[text.index(after: query)...].split(separator: "&").map { part in
                    part.hasPrefix("password=") ? "password=***" : String(part)
                }
                text = String(text[...query]) + parts.joined(separator: "&")
            }
            return text
        }
        return text.split(separator: " ").map { $0.hasPrefix("password=") ? "password=***" : String($0) }
            .joined(separator: " ")
    }

    /// The schema as a quoted SQL identifier.
    var quotedSchema: String { "\"\(schema)\"" }

    /// The NOTIFY channel of the store.
    var channel: String { "strata_\(schema)" }

    /// The advisory lock that serializes schema changes of this store across processes.
    var schemaLockKey: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "strata-records:\(schema)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    func validate() throws {
        guard RecordStore.isValidName(schema), schema.utf8.count <= 48 else {
            throw StorageError(
                .invalidArgument, "a schema name is letters, digits and '_', not starting with a digit (at most 48)",
                tier: .records, key: schema)
        }
        guard poolSize >= 1, maximumTransactionAttempts >= 1 else {
            throw StorageError(
                .invalidArgument, "the pool needs at least one connection and a transaction at least one attempt",
                tier: .records)
        }
    }

    /// Takes `strata_schema=` out of a URI's query.
    static func extractSchema(from string: String) -> (String, String?) {
        guard isPostgresURL(string), let query = string.firstIndex(of: "?") else { return (string, nil) }
        var schema: String?
        let kept = string[string.index(after: query)...].split(separator: "&").filter { part in
            guard part.hasPrefix("strata_schema=") else { return true }
            schema = String(part.dropFirst("strata_schema=".count)).removingPercentEncoding
            return false
        }
        let base = String(string[..<query])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }
}
