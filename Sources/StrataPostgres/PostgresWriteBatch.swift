import StrataCore
import StrataRecords

/// Inserts (or upserts) of one collection in a pipelined transaction, gathered to go out as one statement,
/// `INSERT … SELECT * FROM unnest($1::text[], $2::jsonb[])`: a chunk of records costs the server one statement
/// instead of one each.
///
/// The ids and bodies travel as two array literals, each element quoted, with `"` and `\` escaped by a
/// backslash (no other byte needs escaping inside quotes, and neither byte occurs inside a multi-byte UTF-8
/// sequence). A chunk never holds the same id twice, so that an upsert chunk means what one statement per
/// record means (PostgreSQL refuses to update one row twice in a statement). The records are kept until the
/// server has stored the chunk, so that a chunk it refuses can be replayed record by record to name the one
/// that failed.
struct PostgresWriteBatch {
    let collection: String
    let mode: RecordWriteMode
    /// The records, in order: the id, and the JSON body.
    private(set) var rows: [(id: String, body: [UInt8])] = []
    private var ids = Set<ExactString>()
    private var idLiteral: [UInt8] = [UInt8(ascii: "{")]
    private var bodyLiteral: [UInt8] = [UInt8(ascii: "{")]

    /// A chunk goes out once it holds this many records, or this many bytes.
    static let maximumRows = 500
    static let maximumBytes = 1 << 20

    init(collection: String, mode: RecordWriteMode) {
        self.collection = collection
        self.mode = mode
    }

    var isFull: Bool {
        rows.count >= Self.maximumRows || idLiteral.count + bodyLiteral.count >= Self.maximumBytes
    }

    func contains(_ id: String) -> Bool { ids.contains(ExactString(id)) }

    mutating func append(id: String, body: UnsafeRawBufferPointer) {
        ids.insert(ExactString(id))
        let bytes = [UInt8](body)
        rows.append((id, bytes))
        Self.appendElement(id.utf8, to: &idLiteral)
        Self.appendElement(bytes, to: &bodyLiteral)
    }

    /// The statement writing the whole chunk: `$1` is the ids, `$2` the bodies.
    var sql: String {
        let insert = "INSERT INTO c_\(collection) (id, body) SELECT * FROM unnest($1::text[], $2::jsonb[])"
        return mode == .upsert ? insert + " ON CONFLICT (id) DO UPDATE SET body = excluded.body" : insert
    }

    var operation: String { PostgresSession.writeSQL(collection, mode: mode).operation }

    /// Lends the two array literals, closed.
    mutating func withLiterals<T>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> T) rethrows
        -> T
    {
        idLiteral.append(UInt8(ascii: "}"))
        bodyLiteral.append(UInt8(ascii: "}"))
        defer {
            idLiteral.removeLast()
            bodyLiteral.removeLast()
        }
        return try idLiteral.withUnsafeBytes { ids in try bodyLiteral.withUnsafeBytes { try body(ids, $0) } }
    }

    /// Drops the literals once sent, keeping the records for a replay.
    mutating func sent() {
        idLiteral = []
        bodyLiteral = []
        ids = []
    }

    private static func appendElement(_ value: some Sequence<UInt8>, to literal: inout [UInt8]) {
        if literal.count > 1 { literal.append(UInt8(ascii: ",")) }
        literal.append(UInt8(ascii: "\""))
        for byte in value {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
            literal.append(byte)
        }
        literal.append(UInt8(ascii: "\""))
    }
}
