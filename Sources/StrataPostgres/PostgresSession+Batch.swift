import StrataCore
import StrataPostgresClient
import StrataRecords

/// The bulk path of a pipelined transaction: inserts and upserts gather into chunks (see ``PostgresWriteBatch``),
/// each sent between `SAVEPOINT` and `RELEASE`, as one multi-row statement in the pipeline or, for the inserts
/// of a large transaction, as a `COPY` streamed while the chunk fills. A chunk the server refuses is rolled back
/// to its savepoint and replayed one statement per record, so that the error names the record that failed, as
/// it would without chunks; the transaction then fails as a whole. (`COPY` cannot upsert.)
extension PostgresSession {
    /// Adds a record to the chunk being gathered, sending the chunk first if the record cannot join it.
    func queue(
        _ collection: String, id: String, body: UnsafeRawBufferPointer, mode: RecordWriteMode,
        keys: PostgresKeyColumns
    ) throws {
        if let pending = batch,
            pending.collection != collection || pending.mode != mode || pending.keys != keys || pending.contains(id)
        {
            try sendBatch()
        }
        if batch == nil {
            let usesCopy = mode == .insert && queuedRecords >= PostgresWriteBatch.copyAfterRows
            batch = PostgresWriteBatch(collection: collection, mode: mode, keys: keys, usesCopy: usesCopy)
        }
        queuedRecords += 1
        try batch!.append(id: id, body: body)
        if batch!.usesCopy && batch!.unsentCopyBytes >= PostgresWriteBatch.copyPieceBytes {
            try remembering { try streamCopy(last: false) }
        }
        // A failure the server already reported stops the writer at once.
        if batch!.isFull || connection.pipeline?.failure != nil { try sendBatch() }
    }

    /// Sends the chunk being gathered, if any: a single record as its own statement, more as one statement or
    /// the end of a `COPY`.
    func sendBatch() throws {
        guard var pending = batch else { return }
        if pending.usesCopy && (pending.count > 1 || connection.isCopying) {
            try remembering {
                try streamCopy(last: true)
                batch = nil
                do {
                    try connection.endCopy(operation: pending.operation, collection: pending.collection)
                } catch let error as StorageError where !error.isConnectionLoss {
                    throw replay(pending, failure: error)
                }
                try connection.enterPipeline()
                try connection.send(
                    "RELEASE SAVEPOINT strata_bulk", operation: pending.operation, collection: pending.collection,
                    prepared: false)
            }
            return
        }
        batch = nil
        let operation = pending.operation
        let collection = pending.collection
        if pending.count == 1 {
            try remembering { try sendEach(of: pending) }
            return
        }
        chunkCount += 1
        let (chunk, sql) = (chunkCount, pending.sql)
        if let answered = connection.pipeline?.answeredChunk {
            sentChunks = sentChunks.filter { $0.key > answered }
        }
        try remembering {
            try connection.send("SAVEPOINT strata_bulk", operation: operation, collection: collection, prepared: false)
            try pending.withParameters { parameters in
                try connection.send(sql, parameters, operation: operation, collection: collection, chunk: chunk)
            }
            pending.sent()
            sentChunks[chunk] = pending
            try connection.send(
                "RELEASE SAVEPOINT strata_bulk", operation: operation, collection: collection, prepared: false)
        }
    }

    /// Streams the rows of the `COPY` chunk being gathered that are not sent yet (and its end, when `last`),
    /// starting the `COPY` first if needed.
    private func streamCopy(last: Bool) throws {
        guard let pending = batch, pending.usesCopy else { return }
        let (sql, operation, collection) = (pending.copySQL, pending.operation, pending.collection)
        try batch!.withUnsentCopyData(last: last) { data in
            if !connection.isCopying {
                try connection.send(
                    "SAVEPOINT strata_bulk", operation: operation, collection: collection, prepared: false)
                try connection.beginCopy(sql, operation: operation, collection: collection)
            }
            try connection.putCopyData(data, operation: operation, collection: collection)
        }
    }

    /// When `error` is a chunk's failure, rolls the chunk back to its savepoint and replays it one statement per
    /// record: returns the error of the record that failed (the transaction stays aborted), or a lost
    /// connection's error. Any other error is returned as it is.
    func nameFailedRecord(_ error: StorageError) -> StorageError {
        guard let chunk = connection.pipeline?.failedChunk else { return error }
        connection.pipeline?.failedChunk = nil
        guard let failed = sentChunks[chunk] else { return error }
        sentChunks = [:]
        return replay(failed, failure: error)
    }

    /// Rolls a refused chunk back to its savepoint and replays it one statement per record, in the pipeline:
    /// returns the error of the record that failed, or a lost connection's error, or else `failure`, the
    /// chunk's own error.
    private func replay(_ failed: PostgresWriteBatch, failure: StorageError) -> StorageError {
        let operation = failed.operation
        do {
            if connection.pipeline == nil {
                try connection.enterPipeline()
            } else if connection.pipeline?.isSynchronized == false {
                // Reads up to the synchronization point, past the statements the server skipped.
                do {
                    try connection.sync(operation: operation, collection: failed.collection)
                } catch let lost as StorageError where lost.isConnectionLoss {
                    return lost
                } catch {}
            }
            try connection.send(
                "ROLLBACK TO SAVEPOINT strata_bulk", operation: operation, collection: failed.collection,
                prepared: false)
            try sendEach(of: failed)
            try connection.sync(operation: operation, collection: failed.collection)
        } catch let named as StorageError {
            return named
        } catch {}
        return failure
    }

    /// Sends the records of `batch` one statement each, each naming its record if it fails.
    private func sendEach(of batch: PostgresWriteBatch) throws {
        let (sql, operation) = Self.writeSQL(batch.collection, mode: batch.mode, keys: batch.keys)
        for row in batch.rows {
            try row.body.withUnsafeBytes { body in
                try connection.send(
                    sql,
                    [.text(row.id), .bytes(body)]
                        + batch.keys.keys(of: body, id: row.id, in: batch.collection).map(Self.keyParameter),
                    operation: operation, collection: batch.collection, key: row.id)
            }
        }
    }
}
