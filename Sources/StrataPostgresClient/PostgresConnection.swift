internal import CLibPQ
import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection: the only type that calls libpq. Not thread-safe by itself; the pool hands each
/// connection to one thread at a time.
///
/// Every exchange with the server is non-blocking and waits in `poll()` on the connection's socket, bounded by
/// the configuration's per-call deadline: a server that stops answering (stopped, overloaded, behind a dead
/// network) costs the caller at most that long, then `.timeout`, and the connection is closed.
package final class PostgresConnection {
    private(set) var handle: OpaquePointer?
    /// Where the connection goes, for errors: `postgresql://user@host:port/db`, never the password.
    package private(set) var location: String
    /// Statements prepared on this connection, by SQL text; at most ``preparedLimit``, then all are dropped.
    var prepared: [String: String] = [:]
    var preparedCount = 0
    static let preparedLimit = 256
    /// Set when the server or the network dropped the connection, or a call to it timed out; the pool then
    /// throws it away.
    package var isBroken = false
    /// The tier its errors name (see ``PostgresClientConfiguration/tier``).
    let tier: Tier?
    /// The longest one call may take, in milliseconds (0: no deadline).
    let callTimeoutMilliseconds: Int
    /// The statements sent and not yet answered, while the connection is in pipeline mode (see
    /// `PostgresConnection+Pipeline.swift`); `nil` outside it.
    package var pipeline: PostgresPipeline?
    /// How many times this connection waited for the server's answers (for tests that count round trips).
    package var roundTrips = 0
    /// How many statements this connection sent (for tests that count them).
    package var statementsSent = 0
    /// Whether a `COPY … FROM STDIN` is in progress (see `PostgresConnection+Copy.swift`): nothing else can be
    /// sent until it ends.
    package var isCopying = false

    /// Connects with a libpq connection string (`postgresql://…` or `key=value …`; libpq's `PG…` environment
    /// variables fill in what it leaves out), then sets the session up: UTF-8, the configured schema
    /// first on the search path, and the lock timeout.
    /// - Throws: `.timeout` when connecting takes longer than `connect_timeout` or the call deadline.
    package init(_ configuration: PostgresClientConfiguration) throws {
        location = configuration.redactedConnectionString
        tier = configuration.tier
        callTimeoutMilliseconds = configuration.callTimeoutMilliseconds
        // The timeouts and keepalives go first, so that the connection string's own values win; the encoding
        // goes last, so that nothing overrides it.
        let settings =
            configuration.connectionKeywords + [
                ("dbname", configuration.connectionString), ("fallback_application_name", "strata"),
                ("client_encoding", "UTF8"),
            ]
        let connection = Self.withCStrings(settings.map(\.0)) { keywordPointers in
            Self.withCStrings(settings.map(\.1)) { valuePointers in
                PQconnectStartParams(keywordPointers, valuePointers, 1)
            }
        }
        handle = connection
        guard let connection, PQstatus(connection) != CONNECTION_BAD else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            close()
            throw Self.connectError(message, location: location, tier: tier)
        }
        try finishConnecting(connection, configuration)
        strata_pg_silence(connection)
        location = Self.describe(connection)
        try execute(configuration.sessionSetupSQL, operation: "connect")
    }

    /// Drives libpq's non-blocking connection to the end, waiting on its socket at most until libpq's effective
    /// `connect_timeout` (the connection string's, or the configuration's) or the call deadline, whichever is
    /// first. (libpq applies `connect_timeout` itself only to blocking connections.)
    private func finishConnecting(_ connection: OpaquePointer, _ configuration: PostgresClientConfiguration) throws {
        let started = ContinuousClock.now
        var deadline = configuration.callDeadline()
        if let seconds = Self.option("connect_timeout", of: connection).flatMap({ Int($0) }), seconds > 0 {
            // libpq reads 1 as 2 seconds.
            let connectDeadline = started + .seconds(max(2, seconds))
            deadline = deadline.map { min($0, connectDeadline) } ?? connectDeadline
        }
        var status = PGRES_POLLING_WRITING
        while status != PGRES_POLLING_OK {
            guard status != PGRES_POLLING_FAILED else {
                let message = String(cString: PQerrorMessage(connection))
                close()
                throw Self.connectError(message, location: location, tier: tier)
            }
            let events = Int16(status == PGRES_POLLING_READING ? POLLIN : POLLOUT)
            let ready = try? Sys.poll(FileDescriptor(rawValue: PQsocket(connection)), events: events, until: deadline)
            if ready == 0 {
                close()
                var error = StorageError(
                    .timeout, "cannot connect: the server did not answer within the connect timeout",
                    tier: tier, path: location,
                    recovery: "Check that the server is running and reachable; raise connect_timeout if it is slow")
                error.operation = "connect"
                error.detail = PostgresErrorDetail(elapsed: Self.seconds(since: started))
                throw error
            }
            status = PQconnectPoll(connection)
        }
        PQsetnonblocking(connection, 1)
    }

    deinit { close() }

    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        pipeline = nil
        isCopying = false
    }

    /// Closes the connection and marks it broken, so that the pool never hands it out again.
    package func discard() {
        isBroken = true
        close()
    }

    /// Whether the server closed this idle connection (a restart, `pg_terminate_backend`, an idle timeout), found
    /// without a round trip: what the socket holds is read without waiting, and a server that said goodbye left
    /// its last message and the end of the stream there (libpq takes the message as a notice, and the end, read
    /// next — a TLS stream's comes in a read of its own — as the connection lost). A connection found closed is
    /// discarded.
    package func wasClosedByServer() -> Bool {
        guard let handle, !isBroken else { return true }
        let socket = FileDescriptor(rawValue: PQsocket(handle))
        for _ in 0..<4 {
            guard let ready = try? Sys.poll(socket, events: Int16(POLLIN), until: .now), ready != 0 else {
                return false
            }
            if PQconsumeInput(handle) != 1 || PQstatus(handle) == CONNECTION_BAD {
                discard()
                return true
            }
        }
        return false
    }

    /// The server process serving this connection (for `pg_terminate_backend` in tests, and for logs).
    package var serverProcessID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Whether the connection is encrypted with TLS.
    package var usesTLS: Bool { handle.map { PQsslInUse($0) != 0 } ?? false }

    /// Whether a transaction is open (or failed and waiting for ROLLBACK).
    package var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Whether a statement failed inside the open transaction, which the server has therefore aborted.
    package var transactionFailed: Bool { handle.map { PQtransactionStatus($0) == PQTRANS_INERROR } ?? false }

    /// Runs SQL without parameters (several statements allowed, but one only in pipeline mode), ignoring any rows.
    package func execute(_ sql: String, operation: String, collection: String? = nil) throws {
        if pipeline != nil {
            try send(sql, operation: operation, collection: collection, prepared: false)
            try sync()
            return
        }
        let result = try exchange(operation: operation, collection: collection) { PQsendQuery($0, sql) }
        defer { PQclear(result) }
        try check(result, operation: operation, collection: collection)
    }

    /// Runs one statement, prepared once per connection and reused.
    /// - Parameter parameters: The values, each cast by the SQL (`$1::jsonb`).
    package func query(
        _ sql: String, _ parameters: [PostgresParameter] = [], operation: String, collection: String? = nil
    )
        throws -> PostgresResult
    {
        if pipeline != nil {
            return try pipelinedQuery(sql, parameters, operation: operation, collection: collection)
        }
        try checkText(parameters, operation: operation, collection: collection)
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            // Queries differ in shape (an `isIn` of 3 values or of 4), so the cache is bounded: past the limit,
            // drop every prepared statement (outside a failed transaction, where nothing can run).
            if prepared.count >= Self.preparedLimit && !transactionFailed {
                try execute("DEALLOCATE ALL", operation: operation, collection: collection)
                prepared.removeAll()
            }
            preparedCount += 1
            let fresh = "s\(preparedCount)"
            let result = try exchange(operation: operation, collection: collection) {
                PQsendPrepare($0, fresh, sql, Int32(parameters.count), nil)
            }
            defer { PQclear(result) }
            try check(result, operation: operation, collection: collection)
            prepared[sql] = fresh
            name = fresh
        }
        let result = try exchange(operation: operation, collection: collection) { handle in
            PostgresParameter.withValues(parameters) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 0)
            }
        }
        do {
            try check(result, operation: operation, collection: collection)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresResult(result!)
    }

    /// Sends a command with `send` (one of libpq's `PQsend…`) and collects its results, every wait bounded by
    /// the call deadline. Returns the first failed result, or else the last one (as `PQexec` does); the caller
    /// clears it. A `COPY … FROM STDIN` stops at its start: its `PGRES_COPY_IN` result is returned.
    /// - Throws: `.connectionFailed` when the connection is lost; `.timeout` when the deadline passes, after
    ///   asking the server to cancel the statement and closing the connection.
    func exchange(operation: String, collection: String?, _ send: (OpaquePointer) -> Int32) throws
        -> OpaquePointer?
    {
        guard let handle else { throw closedError(operation) }
        let started = ContinuousClock.now
        let deadline = callTimeoutMilliseconds > 0 ? started + .milliseconds(callTimeoutMilliseconds) : nil
        guard send(handle) == 1 else { throw failure(nil, operation: operation, collection: collection) }
        roundTrips += 1
        statementsSent += 1
        // Send what libpq buffered; while the server's answer may also need reading.
        var flushed = PQflush(handle)
        while flushed == 1 {
            let ready = try wait(handle, for: Int16(POLLIN | POLLOUT), until: deadline)
            guard ready != 0 else { throw abandon(operation, collection: collection, started: started) }
            if ready & Int16(POLLIN) != 0 && PQconsumeInput(handle) != 1 {
                throw failure(nil, operation: operation, collection: collection)
            }
            flushed = PQflush(handle)
        }
        guard flushed == 0 else { throw failure(nil, operation: operation, collection: collection) }
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                guard try wait(handle, for: Int16(POLLIN), until: deadline) != 0 else {
                    PQclear(kept)
                    throw abandon(operation, collection: collection, started: started)
                }
                guard PQconsumeInput(handle) == 1 else {
                    PQclear(kept)
                    throw failure(nil, operation: operation, collection: collection)
                }
            }
            guard let result = PQgetResult(handle) else { break }
            if PQresultStatus(result) == PGRES_COPY_IN {
                // The server waits for the rows (libpq would hand out this result again and again).
                PQclear(kept)
                return result
            }
            if let previous = kept, PQresultStatus(previous) == PGRES_FATAL_ERROR {
                PQclear(result)
            } else {
                PQclear(kept)
                kept = result
            }
        }
        return kept
    }

    /// Waits for the socket; 0 when the deadline passed first.
    func wait(_ handle: OpaquePointer, for events: Int16, until deadline: ContinuousClock.Instant?) throws
        -> Int16
    {
        do {
            return try Sys.poll(FileDescriptor(rawValue: PQsocket(handle)), events: events, until: deadline)
        } catch {
            discard()
            var failed = StorageError(
                .connectionFailed, "cannot wait for the server", tier: tier, path: location, errno: error.code)
            failed.operation = "wait"
            throw failed
        }
    }

    /// Gives up on a call past its deadline: asks the server to cancel the statement (on a thread of its own,
    /// since libpq's cancel request waits for the server's answer, which a hung server never gives), and closes
    /// the connection, whose state is now unknown.
    func abandon(_ operation: String, collection: String?, started: ContinuousClock.Instant) -> StorageError {
        if let handle { PostgresCancelRequest(handle)?.sendInBackground() }
        discard()
        var error = StorageError(
            .timeout,
            "the server did not answer within \(callTimeoutMilliseconds) ms; the statement was cancelled and the connection closed",
            tier: tier, path: location,
            recovery:
                "Check that the server is running and reachable; for statements that are slow on purpose, raise callTimeoutMilliseconds"
        )
        error.operation = operation
        error.collection = collection
        error.detail = PostgresErrorDetail(elapsed: Self.seconds(since: started))
        return error
    }

    package static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Waits up to `timeout` seconds for notifications and returns those that arrived as (channel, payload).
    /// - Throws: `.connectionFailed` when the connection is lost.
    package func notifications(waitingUpTo timeout: Double) throws -> [(channel: String, payload: String)] {
        guard let handle else { throw closedError("observe") }
        var found = drainNotifications()
        guard found.isEmpty else { return found }
        let ready = try wait(handle, for: Int16(POLLIN), until: .now + .milliseconds(Int(timeout * 1000)))
        if ready != 0 {
            guard PQconsumeInput(handle) == 1 else {
                isBroken = true
                throw failure(nil, operation: "observe", collection: nil)
            }
            found = drainNotifications()
        }
        return found
    }

    private func drainNotifications() -> [(channel: String, payload: String)] {
        guard let handle else { return [] }
        var found: [(String, String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }

    // MARK: Errors

    /// Refuses a parameter in the text format that holds a NUL byte, which libpq would cut short there (so that
    /// a statement would quietly read or write another value).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the operation and collection.
    func checkText(_ parameters: [PostgresParameter], operation: String, collection: String?) throws {
        guard let position = parameters.firstIndex(where: \.isTextWithNUL) else { return }
        var error = StorageError(
            .invalidArgument,
            "parameter \(position + 1) of the statement contains U+0000 (NUL), which PostgreSQL text cannot hold",
            tier: tier, path: location, recovery: "Leave NUL characters out of ids and text values")
        error.operation = operation
        error.collection = collection
        throw error
    }

    func closedError(_ operation: String) -> StorageError {
        var error = StorageError(.closed, "the connection is closed", tier: tier, path: location)
        error.operation = operation
        return error
    }

    /// Throws the typed error for a failed result (or a failed call that returned none).
    func check(_ result: OpaquePointer?, operation: String, collection: String?) throws {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        }
        throw failure(result, operation: operation, collection: collection)
    }

    func failure(_ result: OpaquePointer?, operation: String, collection: String?) -> StorageError {
        func field(_ code: Int32) -> String? {
            guard let result, let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        if let handle, PQstatus(handle) == CONNECTION_BAD { isBroken = true }
        let sqlState = field(strata_pg_diag_sqlstate()) ?? (isBroken ? "08006" : "XX000")
        let message =
            field(strata_pg_diag_message())
            ?? handle.map { String(cString: PQerrorMessage($0)).trimmingCharacters(in: .whitespacesAndNewlines) }
            ?? "the statement failed"
        var error = Self.error(sqlState: sqlState, message: message, location: location, tier: tier)
        if let detail = field(strata_pg_diag_detail()) { error.message += " (\(detail))" }
        error.operation = operation
        error.collection = collection
        if let constraint = field(strata_pg_diag_constraint()) {
            error.message += " (constraint \(constraint))"
            error.updatePostgres { $0.constraint = constraint }
        }
        return error
    }

    /// Maps a SQLSTATE (PostgreSQL's five-character error code) to Strata's codes.
    static func error(sqlState: String, message: String, location: String, tier: Tier?) -> StorageError {
        let code: StorageError.Code
        var recovery: String?
        switch sqlState {
        case "23505":
            code = .constraintViolation
            recovery = "A unique field already has this value in another record"
        case let state where state.hasPrefix("23"): code = .constraintViolation
        case "40001", "40P01":
            code = .conflict
            recovery = "A concurrent transaction touched the same records; run the operation again"
        case "55P03", "57014":
            code = .lockTimeout
            recovery = "Another transaction held the rows past the lock timeout; retry, or raise it"
        case "53100": code = .noSpace
        case "54000", "54001": code = .tooLarge
        case "28P01", "28000":
            code = .authenticationFailed
            recovery = "Check the user and password in the connection string (or PGUSER / PGPASSWORD)"
        case "42501": code = .permissionDenied
        case "3D000": code = .notFound
        case let state where state.hasPrefix("08") || state.hasPrefix("57P"):
            code = .connectionFailed
            recovery = "Check that the server is running and reachable; the operation did not complete"
        case let state where state.hasPrefix("22"): code = .invalidArgument
        case "XX001", "XX002": code = .corrupt
        default: code = .io
        }
        var error = StorageError(code, "\(message) [SQLSTATE \(sqlState)]", tier: tier, path: location)
        error.recovery = recovery
        // Only a five-character code is a SQLSTATE.
        error.detail = PostgresErrorDetail(sqlState: sqlState.utf8.count == 5 ? sqlState : nil)
        return error
    }

    /// The typed error for a connection that could not be made, from libpq's message.
    static func connectError(_ message: String, location: String, tier: Tier?) -> StorageError {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        var error: StorageError
        if text.contains("password authentication failed") || text.contains("no password supplied")
            || text.contains("authentication failed")
        {
            error = self.error(sqlState: "28P01", message: "cannot connect: \(text)", location: location, tier: tier)
        } else if text.contains("database") && text.contains("does not exist") {
            error = self.error(sqlState: "3D000", message: "cannot connect: \(text)", location: location, tier: tier)
            error.recovery = "Create the database first (createdb), or name an existing one"
        } else if text.contains("invalid") || text.contains("missing \"=\"") || text.contains("unrecognized") {
            error = StorageError(
                .invalidArgument, "the connection string is not valid: \(text)", tier: tier, path: location)
        } else {
            error = self.error(sqlState: "08001", message: "cannot connect: \(text)", location: location, tier: tier)
        }
        error.operation = "connect"
        return error
    }

    /// `postgresql://user@host:port/database`, read back from the live connection.
    private static func describe(_ connection: OpaquePointer) -> String {
        func string(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        let host = string(PQhost(connection))
        let shownHost = host.hasPrefix("/") ? "[\(host)]" : host
        return
            "postgresql://\(string(PQuser(connection)))@\(shownHost):\(string(PQport(connection)))/\(string(PQdb(connection)))"
    }

    /// The value libpq uses for a connection option (`connect_timeout`, `keepalives_idle`, …).
    package func option(_ name: String) -> String? { handle.flatMap { Self.option(name, of: $0) } }

    /// The value libpq uses for a connection option, wherever it came from.
    private static func option(_ name: String, of connection: OpaquePointer) -> String? {
        guard let options = PQconninfo(connection) else { return nil }
        defer { PQconninfoFree(options) }
        var index = 0
        while let keyword = options[index].keyword {
            if String(cString: keyword) == name { return options[index].val.map { String(cString: $0) } }
            index += 1
        }
        return nil
    }

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        pointers.append(nil)
        return body(pointers.map { UnsafePointer($0) })
    }
}
