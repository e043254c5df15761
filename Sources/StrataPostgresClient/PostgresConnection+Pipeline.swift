internal import CLibPQ
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libpq's pipeline mode: statements go out without waiting for the answers to those before them, and the
/// answers are read at the next synchronization point, so that a transaction of many writes costs one round trip.
///
/// While the server answers, every wait is bounded by the call deadline, counted from the last answer read: a
/// long pipeline the server works through is never cut short, and a server that stops answering costs at most
/// the deadline, then `.timeout` (the statement cancelled, the connection closed), as outside a pipeline.
extension PostgresConnection {
    /// Flush the output to the socket after this many statements (or ``flushBytes`` of parameters), reading the
    /// answers that arrived meanwhile: memory stays bounded however long the pipeline, and a failure is seen
    /// early.
    static let flushStatements = 256
    static let flushBytes = 1 << 20

    /// Whether the connection is in pipeline mode.
    package var isPipelining: Bool { pipeline != nil }

    /// Switches to pipeline mode (the connection must be idle).
    package func enterPipeline() throws {
        guard let handle else { throw closedError("begin") }
        guard pipeline == nil else { return }
        guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, operation: "begin", collection: nil) }
        pipeline = PostgresPipeline()
    }

    /// Reads every answer still due (after a synchronization point, sent now if the statements since the last
    /// one have none), and leaves pipeline mode. A connection that cannot be brought back to normal mode is discarded.
    package func leavePipeline() {
        guard let handle, pipeline != nil else { return }
        do {
            // Statements sent since the last synchronization point may have all been answered (libpq answers
            // those the server skips after a failure itself), but the server skips everything until one.
            if pipeline?.isSynchronized == false {
                if !(pipeline?.awaitsSync ?? false) { try sendSync() }
                try readAnswers(operation: "rollback", collection: nil, untilIdle: true)
            }
            pipeline = nil
            if PQexitPipelineMode(handle) != 1 { discard() }
        } catch {
            discard()
        }
    }

    /// Sends one statement in the pipeline, prepared once per connection unless `prepared` is `false` (for
    /// statements run once, like `BEGIN`), without waiting for its answer.
    /// - Parameters:
    ///   - key: The key the statement writes or reads, named in its error.
    ///   - keepsResult: Whether its rows are kept (see ``pipelinedQuery(_:_:operation:collection:)``).
    ///   - isCommit: Whether it is the transaction's `COMMIT`.
    ///   - chunk: The number of the chunk of rows it writes, for a multi-row write.
    /// - Throws: The error of a statement sent earlier that the server already reported failed (this one is then
    ///   not sent: the server would skip it), `.connectionFailed`, or `.timeout`.
    package func send(
        _ sql: String, _ parameters: [PostgresParameter] = [], operation: String, collection: String? = nil,
        key: String? = nil, prepared isPrepared: Bool = true, keepsResult: Bool = false, isCommit: Bool = false,
        chunk: Int? = nil
    ) throws {
        guard let handle else { throw closedError(operation) }
        if let failure = pipeline?.failure { throw failure }
        try checkText(parameters, operation: operation, collection: collection)
        var name: String?
        if isPrepared {
            if let known = prepared[sql] {
                name = known
            } else {
                if prepared.count >= Self.preparedLimit {
                    try sendUnprepared(handle, "DEALLOCATE ALL", operation: operation, collection: collection)
                    prepared.removeAll()
                }
                preparedCount += 1
                let fresh = "s\(preparedCount)"
                guard PQsendPrepare(handle, fresh, sql, Int32(parameters.count), nil) == 1 else {
                    throw failure(nil, operation: operation, collection: collection)
                }
                pipeline?.append(.init(operation: operation, collection: collection, key: nil, prepares: sql))
                prepared[sql] = fresh
                name = fresh
            }
        }
        let sent = PostgresParameter.withValues(parameters) { values, lengths, formats in
            if let name {
                return PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 0)
            }
            return PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw failure(nil, operation: operation, collection: collection) }
        pipeline?.append(
            .init(
                operation: operation, collection: collection, key: key, keepsResult: keepsResult, isCommit: isCommit,
                chunk: chunk))
        statementsSent += 1
        pipeline?.sentSinceFlush += 1
        pipeline?.bytesSinceFlush += parameters.reduce(sql.utf8.count) { $0 + $1.byteCount }
        if let pipeline, pipeline.sentSinceFlush >= Self.flushStatements || pipeline.bytesSinceFlush >= Self.flushBytes
        {
            try flushPipeline(operation: operation, collection: collection)
        }
    }

    private func sendUnprepared(_ handle: OpaquePointer, _ sql: String, operation: String, collection: String?)
        throws
    {
        guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 else {
            throw failure(nil, operation: operation, collection: collection)
        }
        pipeline?.append(.init(operation: operation, collection: collection, key: nil))
    }

    /// Sends a synchronization point and reads every answer up to it.
    /// - Throws: The first statement's error since the last synchronization point (later statements were
    ///   skipped by the server), `.connectionFailed`, or `.timeout`.
    package func sync(operation: String = "commit", collection: String? = nil) throws {
        try sendSync()
        roundTrips += 1
        try readAnswers(operation: operation, collection: collection, untilIdle: true)
        if let failure = pipeline?.failure {
            pipeline?.failure = nil
            throw failure
        }
    }

    /// One statement in the pipeline whose rows the caller waits for: it goes out with every statement queued
    /// before it, in one round trip.
    func pipelinedQuery(_ sql: String, _ parameters: [PostgresParameter], operation: String, collection: String?)
        throws -> PostgresResult
    {
        try send(sql, parameters, operation: operation, collection: collection, keepsResult: true)
        try sync(operation: operation, collection: collection)
        guard let result = pipeline?.kept else {
            throw failure(nil, operation: operation, collection: collection)
        }
        pipeline?.kept = nil
        return result
    }

    private func sendSync() throws {
        guard let handle else { throw closedError("sync") }
        guard PQpipelineSync(handle) == 1 else { throw failure(nil, operation: "sync", collection: nil) }
        pipeline?.append(.init(operation: "sync", collection: nil, key: nil, isSync: true))
    }

    /// Hands what libpq buffered to the socket, reading the answers that arrive meanwhile (the server stops
    /// reading while its answers wait to be read).
    private func flushPipeline(operation: String, collection: String?) throws {
        pipeline?.sentSinceFlush = 0
        pipeline?.bytesSinceFlush = 0
        try readAnswers(operation: operation, collection: collection, untilIdle: false)
    }

    /// Flushes the output, then reads answers: all those due when `untilIdle`, else those already arrived.
    private func readAnswers(operation: String, collection: String?, untilIdle: Bool) throws {
        guard let handle else { throw closedError(operation) }
        let started = ContinuousClock.now
        var deadline = callDeadline(from: started)
        var flushed = PQflush(handle)
        // Whatever arrived meanwhile (answers, or the end of a connection the server dropped), without waiting.
        guard PQconsumeInput(handle) == 1 else { throw lost(operation: operation, collection: collection) }
        while true {
            // Everything that can be read without waiting.
            while PQisBusy(handle) == 0, !(pipeline?.isIdle ?? true) {
                try readAnswer(handle)
                deadline = callDeadline(from: .now)
            }
            guard flushed == 1 || (untilIdle && !(pipeline?.isIdle ?? true)) else { break }
            let events = Int16(flushed == 1 ? POLLIN | POLLOUT : POLLIN)
            let ready = try wait(handle, for: events, until: deadline)
            guard ready != 0 else {
                // A statement that failed before the server stopped answering decided the outcome: everything
                // after it is skipped.
                let failed = pipeline?.failure
                let timedOut = abandon(pipeline?.next?.operation ?? operation, collection: collection, started: started)
                throw failed ?? timedOut
            }
            if ready & Int16(POLLIN) != 0 && PQconsumeInput(handle) != 1 {
                throw lost(operation: operation, collection: collection)
            }
            if flushed == 1 { flushed = PQflush(handle) }
            guard flushed != -1 else { throw lost(operation: operation, collection: collection) }
        }
        guard flushed == 0 else { throw lost(operation: operation, collection: collection) }
    }

    func callDeadline(from instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        callTimeoutMilliseconds > 0 ? instant + .milliseconds(callTimeoutMilliseconds) : nil
    }

    /// Reads one answer (libpq has it whole), matching it with the statement it answers.
    private func readAnswer(_ handle: OpaquePointer) throws {
        guard let statement = pipeline?.next else { return }
        let result = PQgetResult(handle)
        if PQstatus(handle) == CONNECTION_BAD {
            PQclear(result)
            throw lost(operation: statement.operation, collection: statement.collection)
        }
        if statement.isSync {
            // A synchronization point has one answer, with no end marker after it.
            guard let result else { throw lost(operation: statement.operation, collection: statement.collection) }
            PQclear(result)
            pipeline?.advance()
            return
        }
        guard let result else {
            // The end of this statement's answers.
            pipeline?.advance()
            return
        }
        let status = PQresultStatus(result)
        if let sql = statement.prepares, status != PGRES_COMMAND_OK {
            prepared[sql] = nil  // failed or skipped: the server has no such statement
        }
        switch status {
        case PGRES_FATAL_ERROR:
            if pipeline?.failure == nil {
                var error = failure(result, operation: statement.operation, collection: statement.collection)
                error.key = statement.key
                pipeline?.failure = error
                pipeline?.failedChunk = statement.chunk
            }
            PQclear(result)
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            if statement.isCommit { pipeline?.commitSucceeded = true }
            if let chunk = statement.chunk { pipeline?.answeredChunk = chunk }
            if statement.keepsResult {
                pipeline?.kept = PostgresResult(result)
            } else {
                PQclear(result)
            }
        default:
            // Skipped after an earlier failure (PGRES_PIPELINE_ABORTED).
            PQclear(result)
        }
    }

    /// The connection went away in the middle of a pipeline: the first statement's failure, if the server
    /// reported one before (the rest was skipped, so that is what happened), else `.connectionFailed`.
    func lost(operation: String, collection: String?) -> StorageError {
        isBroken = true
        if let failure = pipeline?.failure, !failure.isConnectionLoss { return failure }
        var error = failure(nil, operation: operation, collection: collection)
        if error.code != .connectionFailed {
            error = Self.error(sqlState: "08006", message: error.message, location: location, tier: tier)
            error.operation = operation
            error.collection = collection
        }
        return error
    }
}
