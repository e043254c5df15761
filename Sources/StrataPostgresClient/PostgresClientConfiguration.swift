import Foundation
package import StrataCore

/// Where and how the client connects, and how long it waits: what a ``PostgresConnection`` and a ``PostgresPool``
/// need, whatever an engine stores on the server. A `Sendable` struct of `var`s; an engine builds it from its own
/// configuration.
///
/// The connection string is libpq's, in either form (`postgresql://…` or `key=value …`); what it leaves out, libpq
/// takes from its `PG…` environment variables and `~/.pgpass`. Timeouts and keepalives written in the connection
/// string win over the values here.
package struct PostgresClientConfiguration: Sendable {
    /// The libpq connection string. Empty means libpq's defaults and environment variables alone.
    package var connectionString: String
    /// The schema each connection puts first on its search path, or `nil` to leave the server's. The default is
    /// `nil`.
    package var schema: String?
    /// How long a statement waits for a row lock held by another transaction (PostgreSQL's `lock_timeout`). The
    /// default is 10 000 ms.
    package var lockTimeoutMilliseconds: Int
    /// How many connections the pool opens at most. The default is 8.
    package var poolSize: Int
    /// The longest one call to the server may take (connecting, or one statement and its results) before the
    /// client cancels the statement, closes the connection and throws `.timeout`. 0 means no deadline. The default
    /// is 30 000 ms.
    package var callTimeoutMilliseconds: Int
    /// libpq's `connect_timeout`, in seconds. The default is 10.
    package var connectTimeoutSeconds: Int
    /// libpq's `keepalives_idle`, in seconds. The default is 30.
    package var keepalivesIdleSeconds: Int
    /// libpq's `keepalives_interval`, in seconds. The default is 10.
    package var keepalivesIntervalSeconds: Int
    /// libpq's `keepalives_count`. The default is 3.
    package var keepalivesCount: Int
    /// libpq's `tcp_user_timeout`, in milliseconds. The default is 30 000.
    package var tcpUserTimeoutMilliseconds: Int
    /// The tier the client's errors name: the engine's, which the client does not know. The default is `nil`.
    package var tier: Tier?
    /// Whether the sessions stay open however long they sit idle: `idle_session_timeout` off, on a server that has
    /// it (PostgreSQL 14 and later). For sessions that hold locks while their holder works elsewhere (a catalog's
    /// key locks during a long write to S3): the server ending one would take its locks. The default is `false`
    /// (the server's setting).
    package var outlivesIdleTimeout: Bool

    /// Creates a configuration with the defaults above.
    package init(connectionString: String) {
        self.connectionString = connectionString
        schema = nil
        lockTimeoutMilliseconds = 10_000
        poolSize = 8
        callTimeoutMilliseconds = 30_000
        connectTimeoutSeconds = 10
        keepalivesIdleSeconds = 30
        keepalivesIntervalSeconds = 10
        keepalivesCount = 3
        tcpUserTimeoutMilliseconds = 30_000
        tier = nil
        outlivesIdleTimeout = false
    }

    /// Whether a string is a PostgreSQL connection URI.
    package static func isPostgresURL(_ string: String) -> Bool {
        string.hasPrefix("postgresql://") || string.hasPrefix("postgres://")
    }

    /// The connection string with any password replaced by `***`, for messages.
    package var redactedConnectionString: String {
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

    /// libpq's connection keywords for the timeouts and keepalives, placed before the connection string so that
    /// the string's own values win.
    package var connectionKeywords: [(String, String)] {
        [
            ("connect_timeout", String(connectTimeoutSeconds)), ("keepalives", "1"),
            ("keepalives_idle", String(keepalivesIdleSeconds)),
            ("keepalives_interval", String(keepalivesIntervalSeconds)),
            ("keepalives_count", String(keepalivesCount)), ("tcp_user_timeout", String(tcpUserTimeoutMilliseconds)),
        ]
    }

    /// What each new connection runs first: the schema on the search path, the lock timeout, and no idle timeout
    /// when ``outlivesIdleTimeout`` (set only where the server knows the setting).
    var sessionSetupSQL: String {
        var setup = "SET lock_timeout = \(max(0, lockTimeoutMilliseconds))"
        if let schema { setup = "SET search_path TO \"\(schema)\"; " + setup }
        if outlivesIdleTimeout {
            setup +=
                "; SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'idle_session_timeout'"
        }
        return setup
    }

    /// The per-call deadline from now, or `nil` for none.
    func callDeadline() -> ContinuousClock.Instant? {
        callTimeoutMilliseconds > 0 ? .now + .milliseconds(callTimeoutMilliseconds) : nil
    }
}
