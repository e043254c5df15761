package import StrataCore

/// The bookkeeping of a connection in libpq's pipeline mode: the statements sent and not answered yet, in the
/// order the server answers them, and the first that failed.
///
/// In pipeline mode a statement goes out without waiting for the answer to the one before, so a transaction of
/// many writes costs one round trip, paid at the next synchronization point (a read, or the commit). The server
/// answers in order; after a statement fails it skips every statement up to the synchronization point
/// (`PGRES_PIPELINE_ABORTED`), so the first failure is the one to report, naming the key it was writing.
package struct PostgresPipeline {
    /// One statement sent, waiting for its answer.
    struct Statement {
        /// What it does, for errors (`insert`, `commit`, …).
        let operation: String
        let collection: String?
        /// The key it writes or reads (a record's id, say), for errors.
        let key: String?
        /// Whether its rows are kept for the caller (the statement a synchronous query waits for).
        var keepsResult = false
        /// Whether it is the transaction's `COMMIT`.
        var isCommit = false
        /// Whether it is a synchronization point (`PQpipelineSync`) rather than a statement.
        var isSync = false
        /// The SQL it prepares, when it prepares a statement: forgotten unless the server answers.
        var prepares: String?
        /// The number of the chunk of rows it writes, for a caller that writes many rows in chunks.
        var chunk: Int?
    }

    /// The statements not answered yet; those before `head` are answered.
    private var statements: [Statement] = []
    private var head = 0
    /// Statements sent since the output was last flushed to the socket (see ``PostgresConnection/send``).
    var sentSinceFlush = 0
    /// Bytes of parameters sent since the output was last flushed.
    var bytesSinceFlush = 0
    /// The first statement that failed since the last synchronization point, as its typed error.
    package var failure: StorageError?
    /// The chunk of rows whose statement is that first failure, until the caller has dealt with it.
    package var failedChunk: Int?
    /// The last chunk of rows the server stored (chunks are answered in order).
    package var answeredChunk = 0
    /// The rows of the statement that asked to keep them.
    var kept: PostgresResult?
    /// Whether the server answered the `COMMIT` without an error: the transaction is committed, whatever happens
    /// to the connection afterwards.
    package var commitSucceeded = false

    /// Whether every statement sent has been answered.
    var isIdle: Bool { head == statements.count }

    /// Whether a synchronization point is sent and not answered yet.
    var awaitsSync: Bool { statements.last?.isSync == true && !isIdle }

    /// The statement whose answer comes next.
    var next: Statement? { head < statements.count ? statements[head] : nil }

    /// Whether a `COMMIT` was sent and not answered yet.
    var commitUnanswered: Bool { statements[head...].contains { $0.isCommit } }

    /// Whether every statement sent has been answered, up to a synchronization point after the last one.
    package var isSynchronized: Bool { isIdle && !sentSinceSync }
    /// Whether a statement was sent after the last synchronization point.
    private var sentSinceSync = false

    mutating func append(_ statement: Statement) {
        statements.append(statement)
        sentSinceSync = !statement.isSync
    }

    /// The next statement is answered (all its results were read).
    mutating func advance() {
        head += 1
        if head == statements.count {
            statements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= statements.count {
            statements.removeFirst(head)
            head = 0
        }
    }
}
