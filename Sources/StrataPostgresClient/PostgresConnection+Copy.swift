internal import CLibPQ
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `COPY … FROM STDIN`: rows stream to the server, which stores them as they arrive (no statement per row, the
/// heap filled several rows at a time) while the client produces the next. libpq allows no `COPY` in pipeline
/// mode, so a pipelined connection first reads every answer due and leaves pipeline mode.
///
/// Every wait is bounded by the call deadline, as for any statement. The server reports a row it refuses only
/// when the `COPY` ends (libpq reads no answer while one is in progress); none of its rows are then stored.
extension PostgresConnection {
    /// Starts `sql`, a `COPY … FROM STDIN`, leaving pipeline mode first (one round trip for the answers due, one
    /// for the start).
    /// - Throws: The error of a statement sent earlier in the pipeline (the `COPY` is then not started), the
    ///   `COPY`'s own error, `.connectionFailed`, or `.timeout`.
    package func beginCopy(_ sql: String, operation: String, collection: String) throws {
        if pipeline != nil {
            try sync(operation: operation, collection: collection)
            leavePipeline()
        }
        let result = try exchange(operation: operation, collection: collection) { PQsendQuery($0, sql) }
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COPY_IN else {
            try check(result, operation: operation, collection: collection)
            throw failure(result, operation: operation, collection: collection)
        }
        isCopying = true
    }

    /// Sends rows of the `COPY` in progress (whole rows or parts: the server joins them), waiting while the
    /// server is behind, so that memory stays bounded.
    /// - Throws: `.connectionFailed`, or `.timeout`.
    package func putCopyData(_ bytes: UnsafeRawBufferPointer, operation: String, collection: String) throws {
        guard let handle else { throw closedError(operation) }
        let started = ContinuousClock.now
        let queued = bytes.withMemoryRebound(to: CChar.self) {
            PQputCopyData(handle, $0.baseAddress, Int32($0.count))
        }
        guard queued == 1 else { throw lostCopy(operation: operation, collection: collection) }
        try flushCopy(handle, operation: operation, collection: collection, started: started)
    }

    /// Ends the `COPY` in progress and waits for the server to store its rows.
    /// - Throws: The error of the row the server refused (none of the `COPY`'s rows are stored),
    ///   `.connectionFailed`, or `.timeout`.
    package func endCopy(operation: String, collection: String) throws {
        try finishCopy(failing: nil, operation: operation, collection: collection)
    }

    /// Ends the `COPY` in progress, if any, storing none of its rows (the transaction is then aborted). A
    /// connection that cannot end it is discarded.
    package func cancelCopy() {
        guard isCopying else { return }
        do {
            try finishCopy(failing: "abandoned by the client", operation: "rollback", collection: nil)
        } catch let error as StorageError where error.isConnectionLoss {
            discard()
        } catch {}
    }

    /// Sends the end of the `COPY` (or its failure, with this message) and reads its outcome.
    private func finishCopy(failing message: String?, operation: String, collection: String?) throws {
        guard let handle else { throw closedError(operation) }
        isCopying = false
        let ended = message.map { PQputCopyEnd(handle, $0) } ?? PQputCopyEnd(handle, nil)
        guard ended == 1 else { throw lostCopy(operation: operation, collection: collection) }
        // Nothing more to send: flushes what libpq holds, then reads the answer.
        let result = try exchange(operation: operation, collection: collection) { _ in 1 }
        defer { PQclear(result) }
        try check(result, operation: operation, collection: collection)
    }

    /// The connection failed in the middle of a `COPY`.
    private func lostCopy(operation: String, collection: String?) -> StorageError {
        isCopying = false
        return lost(operation: operation, collection: collection)
    }

    /// Hands what libpq holds to the socket, waiting while the socket takes no more (the server is behind).
    private func flushCopy(
        _ handle: OpaquePointer, operation: String, collection: String, started: ContinuousClock.Instant
    )
        throws
    {
        var flushed = PQflush(handle)
        var deadline = callDeadline(from: started)
        while flushed == 1 {
            let ready = try wait(handle, for: Int16(POLLOUT), until: deadline)
            guard ready != 0 else { throw abandon(operation, collection: collection, started: started) }
            flushed = PQflush(handle)
            deadline = callDeadline(from: .now)
        }
        guard flushed == 0 else { throw lostCopy(operation: operation, collection: collection) }
    }
}
