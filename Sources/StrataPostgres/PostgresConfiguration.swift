public import Foundation
import StrataCore
package import StrataPostgresClient
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
    /// How long ``/StrataRecords/RecordStore/write(_:)`` keeps running again a transaction that the server rolled back
    /// for a serialization failure or a deadlock, before reporting `.conflict` (with the attempts and the time spent in
    /// its `PostgresErrorDetail`, `error.postgres`). Between attempts it sleeps a random time in
    /// [0, min(200 ms, 1 ms · 2ⁿ)] (exponential backoff with full jitter). In a URI, `strata_retry_budget=<ms>`. The
    /// default is 30 000 ms.
    public var transactionRetryBudgetMilliseconds: Int
    /// A cap on the attempts as well as the time, for callers that want one. The default is `Int.max`: only
    /// ``transactionRetryBudgetMilliseconds`` limits the retries.
    public var maximumTransactionAttempts: Int
    /// How long a statement waits for a row lock held by another transaction before `.lockTimeout`
    /// (PostgreSQL's `lock_timeout`). The default is 10 000 ms.
    public var lockTimeoutMilliseconds: Int
    /// The longest any one call to the server may take — connecting, or one statement and its results — before
    /// the engine cancels the statement, closes the connection and throws `.timeout`. It bounds every wait for a
    /// hung server or network. 0 means no deadline. In a URI, `strata_call_timeout=<ms>`. The default is
    /// 30 000 ms.
    public var callTimeoutMilliseconds: Int
    /// libpq's `connect_timeout`, in seconds: how long connecting may take. The default is 10.
    public var connectTimeoutSeconds: Int
    /// libpq's `keepalives_idle`: seconds of silence before TCP probes a connection (an idle pooled or listening
    /// one whose server host vanished). The default is 30.
    public var keepalivesIdleSeconds: Int
    /// libpq's `keepalives_interval`: seconds between unanswered TCP keepalive probes. The default is 10.
    public var keepalivesIntervalSeconds: Int
    /// libpq's `keepalives_count`: unanswered probes before the connection counts as lost. The default is 3.
    public var keepalivesCount: Int
    /// libpq's `tcp_user_timeout`: how long sent data may stay unacknowledged before the connection counts as
    /// lost. The default is 30 000 ms.
    public var tcpUserTimeoutMilliseconds: Int

    /// The environment variable ``init(environment:)`` reads the connection string from.
    public static let urlVariable = "STRATA_RECORDS_URL"

    /// Creates a configuration.
    ///
    /// `connect_timeout`, `keepalives_idle`, `keepalives_interval`, `keepalives_count` and `tcp_user_timeout`
    /// written in the connection string (in either form) win over the configuration's values.
    /// - Parameters:
    ///   - connectionString: libpq's connection string; in URI form, `strata_schema`, `strata_call_timeout` and
    ///     `strata_retry_budget` parameters set ``schema``, ``callTimeoutMilliseconds`` and
    ///     ``transactionRetryBudgetMilliseconds`` (and are not passed to libpq).
    ///   - schema: The schema, when the connection string names none. The default is `strata`.
    ///   - poolSize: ``poolSize``: the most connections the pool opens. The default is 8.
    ///   - maximumTransactionAttempts: ``maximumTransactionAttempts``: a cap on a transaction's attempts besides
    ///     its time budget. The default is `Int.max`.
    ///   - lockTimeoutMilliseconds: ``lockTimeoutMilliseconds``: how long a statement waits for a row lock. The
    ///     default is 10 000 ms.
    public init(
        connectionString: String, schema: String? = nil, poolSize: Int = 8, maximumTransactionAttempts: Int = .max,
        lockTimeoutMilliseconds: Int = 10_000
    ) {
        let (cleaned, named) = Self.extractParameters(
            ["strata_schema", "strata_call_timeout", "strata_retry_budget"], from: connectionString)
        self.connectionString = cleaned
        self.schema = schema ?? named["strata_schema"] ?? "strata"
        self.poolSize = poolSize
        self.maximumTransactionAttempts = maximumTransactionAttempts
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
        transactionRetryBudgetMilliseconds = named["strata_retry_budget"].flatMap { Int($0) } ?? 30_000
        callTimeoutMilliseconds = named["strata_call_timeout"].flatMap { Int($0) } ?? 30_000
        connectTimeoutSeconds = 10
        keepalivesIdleSeconds = 30
        keepalivesIntervalSeconds = 10
        keepalivesCount = 3
        tcpUserTimeoutMilliseconds = 30_000
    }

    /// The configuration in `STRATA_RECORDS_URL`, or `nil` when it is unset or not a `postgres://` /
    /// `postgresql://` URI.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let url = environment[Self.urlVariable], Self.isPostgresURL(url) else { return nil }
        self.init(connectionString: url)
    }

    /// Whether a string is a PostgreSQL connection URI.
    public static func isPostgresURL(_ string: String) -> Bool {
        PostgresClientConfiguration.isPostgresURL(string)
    }

    /// The connection string with any password replaced by `***`, for messages.
    public var redactedConnectionString: String { client.redactedConnectionString }

    /// What the client needs of this configuration: where to connect, the pool, the timeouts, and the schema and
    /// lock timeout each connection starts with. Its errors name the records tier.
    package var client: PostgresClientConfiguration {
        var client = PostgresClientConfiguration(connectionString: connectionString)
        client.schema = schema
        client.lockTimeoutMilliseconds = lockTimeoutMilliseconds
        client.poolSize = poolSize
        client.callTimeoutMilliseconds = callTimeoutMilliseconds
        client.connectTimeoutSeconds = connectTimeoutSeconds
        client.keepalivesIdleSeconds = keepalivesIdleSeconds
        client.keepalivesIntervalSeconds = keepalivesIntervalSeconds
        client.keepalivesCount = keepalivesCount
        client.tcpUserTimeoutMilliseconds = tcpUserTimeoutMilliseconds
        client.tier = .records
        return client
    }

    /// The schema as a quoted SQL identifier.
    package var quotedSchema: String { "\"\(schema)\"" }

    /// The NOTIFY channel of the store.
    var channel: String { "strata_\(schema)" }

    /// The advisory lock that serializes schema changes of the records engine across processes (held through a
    /// whole migration).
    var schemaLockKey: Int64 { PostgresAdvisoryLock.key("strata-records:\(schema)") }

    package func validate() throws {
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
        let durations = [
            transactionRetryBudgetMilliseconds, lockTimeoutMilliseconds, callTimeoutMilliseconds, connectTimeoutSeconds,
            keepalivesIdleSeconds, keepalivesIntervalSeconds, keepalivesCount, tcpUserTimeoutMilliseconds,
        ]
        guard durations.allSatisfy({ $0 >= 0 }) else {
            throw StorageError(
                .invalidArgument, "timeouts, budgets and keepalive settings cannot be negative", tier: .records,
                recovery: "Use 0 for none")
        }
    }

    /// libpq's connection keywords for the timeouts and keepalives, placed before the connection string so that
    /// the string's own values win.
    var connectionKeywords: [(String, String)] { client.connectionKeywords }

    /// Takes Strata's own parameters (`strata_schema=`, …) out of a URI's query.
    static func extractParameters(_ names: [String], from string: String) -> (String, [String: String]) {
        guard isPostgresURL(string), let query = string.firstIndex(of: "?") else { return (string, [:]) }
        var found: [String: String] = [:]
        let kept = string[string.index(after: query)...].split(separator: "&").filter { part in
            let pair = part.split(separator: "=", maxSplits: 1)
            guard let name = pair.first.map(String.init), names.contains(name) else { return true }
            found[name] = pair.count == 2 ? String(pair[1]).removingPercentEncoding : ""
            return false
        }
        let base = String(string[..<query])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), found)
    }
}
