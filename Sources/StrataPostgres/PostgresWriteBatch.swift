import StrataCore
import StrataRecords

/// Inserts (or upserts) of one collection in a pipelined transaction, gathered to go out as one statement: a
/// chunk of records costs the server one statement instead of one each.
///
/// A chunk goes out in one of two ways:
/// - `INSERT … SELECT * FROM unnest($1::text[], $2::jsonb[])`, in the pipeline: the ids and bodies travel as two
///   array literals, each element quoted, with `"` and `\` escaped by a backslash (no other byte needs escaping
///   inside quotes, and neither byte occurs inside a multi-byte UTF-8 sequence). Such a chunk never holds the
///   same id twice, so that an upsert chunk means what one statement per record means (PostgreSQL refuses to
///   update one row twice in a statement). The records are kept until the server has stored the chunk, so that
///   a chunk it refuses can be replayed record by record to name the one that failed.
/// - `COPY … FROM STDIN (FORMAT binary)`, for inserts once a transaction has written ``copyAfterRows`` records:
///   the rows stream to the server while the chunk fills, as a length and the bytes of each value (nothing to
///   escape, and the server parses no literal). The rows are kept in that form, to replay a refused chunk; an
///   id twice in a chunk fails it, and the replay then names the second, as one statement per record would.
struct PostgresWriteBatch {
    let collection: String
    let mode: RecordWriteMode
    /// Whether the chunk is a `COPY`.
    let usesCopy: Bool
    /// The records of an `INSERT … unnest` chunk, in order: the id, and the JSON body.
    private var insertRows: [(id: String, body: [UInt8])] = []
    private var ids = Set<ExactString>()
    private var idLiteral: [UInt8] = [UInt8(ascii: "{")]
    private var bodyLiteral: [UInt8] = [UInt8(ascii: "{")]
    /// The rows of a `COPY` chunk in its binary format, after its header; those from `copySent` on are not sent.
    private var copyRows: [UInt8] = []
    private var copySent = 0
    /// How many records the chunk holds.
    private(set) var count = 0

    /// An `INSERT … unnest` chunk goes out once it holds this many records, or this many bytes.
    static let maximumRows = 500
    static let maximumBytes = 1 << 20
    /// A transaction's inserts go out as `COPY` once it has written this many records (a smaller transaction
    /// keeps its single round trip: a `COPY` costs three).
    static let copyAfterRows = 2 * maximumRows
    /// A `COPY` chunk ends once it holds this many bytes (the records kept for a replay).
    static let maximumCopyBytes = 16 << 20
    /// A `COPY` chunk's rows go to the server in pieces of this many bytes.
    static let copyPieceBytes = 64 << 10

    init(collection: String, mode: RecordWriteMode, usesCopy: Bool = false) {
        self.collection = collection
        self.mode = mode
        self.usesCopy = usesCopy
    }

    var isFull: Bool {
        usesCopy
            ? copyRows.count >= Self.maximumCopyBytes
            : count >= Self.maximumRows || idLiteral.count + bodyLiteral.count >= Self.maximumBytes
    }

    /// Whether the chunk must go out before a record with this id joins it.
    func contains(_ id: String) -> Bool { !usesCopy && ids.contains(ExactString(id)) }

    mutating func append(id: String, body: UnsafeRawBufferPointer) {
        count += 1
        if usesCopy {
            PostgresBinaryCopy.appendRow(fields: 2, to: &copyRows)
            PostgresBinaryCopy.appendField(id.utf8, to: &copyRows)
            PostgresBinaryCopy.appendJSONB(body, to: &copyRows)
            return
        }
        ids.insert(ExactString(id))
        let bytes = [UInt8](body)
        insertRows.append((id, bytes))
        Self.appendElement(id.utf8, to: &idLiteral)
        Self.appendElement(bytes, to: &bodyLiteral)
    }

    /// The records, in order: the id, and the JSON body.
    var rows: [(id: String, body: [UInt8])] {
        guard usesCopy else { return insertRows }
        var rows: [(id: String, body: [UInt8])] = []
        var offset = 0
        func field() -> ArraySlice<UInt8> {
            let length = copyRows[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            defer { offset += 4 + length }
            return copyRows[offset + 4..<offset + 4 + length]
        }
        while offset < copyRows.count {
            offset += 2
            let id = String(decoding: field(), as: UTF8.self)
            rows.append((id, [UInt8](field().dropFirst())))
        }
        return rows
    }

    /// The statement starting a `COPY` chunk.
    var copySQL: String { "COPY c_\(collection) (id, body) FROM STDIN (FORMAT binary)" }

    /// The bytes of a `COPY` chunk's rows not sent yet.
    var unsentCopyBytes: Int { copyRows.count - copySent }

    /// Lends the rows of a `COPY` chunk not sent yet, preceded by the format's header in the first piece, and
    /// followed by its trailer when `last`.
    mutating func withUnsentCopyData(last: Bool, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let piece = copySent == 0 ? PostgresBinaryCopy.header : []
        let trailer = last ? PostgresBinaryCopy.trailer : []
        if piece.isEmpty && trailer.isEmpty {
            try copyRows[copySent...].withUnsafeBytes(body)
        } else {
            try (piece + copyRows[copySent...] + trailer).withUnsafeBytes(body)
        }
        copySent = copyRows.count
    }

    /// The statement writing the whole chunk: `$1` is the ids, `$2` the bodies.
    var sql: String {
        let insert = "INSERT INTO c_\(collection) (id, body) SELECT * FROM unnest($1::text[], $2::jsonb[])"
        return mode == .upsert ? insert + " ON CONFLICT (id) DO UPDATE SET body = excluded.body" : insert
    }

    var operation: String { PostgresSession.operation(mode) }

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

    /// Drops the literals of an `INSERT … unnest` chunk once sent, keeping the records for a replay.
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
