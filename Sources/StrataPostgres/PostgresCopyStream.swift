import StrataCore
import StrataPostgresClient

/// One binary `COPY … FROM STDIN` in progress: rows gathered, then sent in pieces of
/// ``PostgresWriteBatch/copyPieceBytes`` (memory stays bounded by a piece, whatever the table's size).
struct PostgresCopyStream {
    let connection: PostgresConnection
    let sql: String
    let collection: String
    /// Rows not sent yet.
    var rows: [UInt8] = []
    private var started = false

    init(_ connection: PostgresConnection, sql: String, collection: String) {
        self.connection = connection
        self.sql = sql
        self.collection = collection
    }

    mutating func sendIfLarge() throws {
        if rows.count >= PostgresWriteBatch.copyPieceBytes { try send(last: false) }
    }

    mutating func end() throws {
        try send(last: true)
        try connection.endCopy(operation: "restore", collection: collection)
    }

    private mutating func send(last: Bool) throws {
        if !started {
            try connection.beginCopy(sql, operation: "restore", collection: collection)
            rows = PostgresBinaryCopy.header + rows
            started = true
        }
        if last { rows += PostgresBinaryCopy.trailer }
        try rows.withUnsafeBytes { try connection.putCopyData($0, operation: "restore", collection: collection) }
        rows.removeAll(keepingCapacity: true)
    }
}
