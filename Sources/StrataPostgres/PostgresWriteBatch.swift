import StrataCore
import StrataPostgresClient
import StrataRecords

/// Inserts (or upserts) of one collection in a pipelined transaction, gathered to go out as one statement: a
/// chunk of records costs the server one statement instead of one each.
///
/// A chunk goes out in one of two ways:
/// Each record also carries the keys of the collection's indexed fields (``PostgresKeyColumns``), one more array or
/// field per key column.
///
/// - `INSERT … SELECT * FROM unnest($1::text[], $2::jsonb[], $3::bytea[], …)`, in the pipeline: the ids, bodies and
///   keys travel as array literals, each element quoted, with `"` and `\` escaped by a backslash (no other byte needs escaping
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
    /// The key columns every record of the chunk writes.
    let keys: PostgresKeyColumns
    /// Whether the chunk is a `COPY`.
    let usesCopy: Bool
    /// The records of an `INSERT … unnest` chunk, in order: the id, and the JSON body.
    private var insertRows: [(id: String, body: [UInt8])] = []
    private var ids = Set<ExactString>()
    private var idLiteral: [UInt8] = [UInt8(ascii: "{")]
    private var bodyLiteral: [UInt8] = [UInt8(ascii: "{")]
    /// One literal per key column.
    private var keyLiterals: [[UInt8]]
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

    init(collection: String, mode: RecordWriteMode, keys: PostgresKeyColumns, usesCopy: Bool = false) {
        self.collection = collection
        self.mode = mode
        self.keys = keys
        self.usesCopy = usesCopy
        keyLiterals = Array(repeating: [UInt8(ascii: "{")], count: keys.count)
    }

    var isFull: Bool {
        usesCopy
            ? copyRows.count >= Self.maximumCopyBytes
            : count >= Self.maximumRows || idLiteral.count + bodyLiteral.count >= Self.maximumBytes
    }

    /// Whether the chunk must go out before a record with this id joins it.
    func contains(_ id: String) -> Bool { !usesCopy && ids.contains(ExactString(id)) }

    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the body is not valid JSON.
    mutating func append(id: String, body: UnsafeRawBufferPointer) throws {
        let keyValues = try keys.keys(of: body, id: id, in: collection)
        count += 1
        if usesCopy {
            Self.appendCopyRow(id: id, body: body, keys: keyValues, to: &copyRows)
            return
        }
        ids.insert(ExactString(id))
        let bytes = [UInt8](body)
        insertRows.append((id, bytes))
        Self.appendElement(id.utf8, to: &idLiteral)
        Self.appendElement(bytes, to: &bodyLiteral)
        for (column, key) in keyValues.enumerated() {
            Self.appendElement(PostgresIndexKey.hex(key), to: &keyLiterals[column])
        }
    }

    /// Appends a record's row in binary `COPY` form: its id, its body, its keys.
    static func appendCopyRow(id: String, body: UnsafeRawBufferPointer, keys: [[UInt8]], to rows: inout [UInt8]) {
        PostgresBinaryCopy.appendRow(fields: 2 + keys.count, to: &rows)
        PostgresBinaryCopy.appendField(id.utf8, to: &rows)
        PostgresBinaryCopy.appendJSONB(body, to: &rows)
        for key in keys { PostgresBinaryCopy.appendField(key, to: &rows) }
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
            for _ in 0..<keys.count { _ = field() }
        }
        return rows
    }

    /// The statement starting a `COPY` chunk.
    var copySQL: String { "COPY c_\(collection) (id, body\(keys.columnList)) FROM STDIN (FORMAT binary)" }

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

    /// The statement writing the whole chunk: `$1` is the ids, `$2` the bodies, `$3`… the keys.
    var sql: String {
        let columns = keys.columns
        let arrays = columns.indices.map { ", $\($0 + 3)::bytea[]" }.joined()
        let insert =
            "INSERT INTO c_\(collection) (id, body\(keys.columnList)) SELECT * FROM unnest($1::text[], $2::jsonb[]\(arrays))"
        guard mode == .upsert else { return insert }
        return insert + " ON CONFLICT (id) DO UPDATE SET body = excluded.body"
            + columns.map { ", \($0) = excluded.\($0)" }.joined()
    }

    var operation: String { PostgresSession.operation(mode) }

    /// Lends the statement's parameters: the array literals, closed.
    mutating func withParameters<T>(_ body: ([PostgresParameter]) throws -> T) rethrows -> T {
        idLiteral.append(UInt8(ascii: "}"))
        bodyLiteral.append(UInt8(ascii: "}"))
        defer {
            idLiteral.removeLast()
            bodyLiteral.removeLast()
        }
        let keyParameters = keyLiterals.map {
            PostgresParameter.text(String(decoding: $0 + [UInt8(ascii: "}")], as: UTF8.self))
        }
        return try idLiteral.withUnsafeBytes { ids in
            try bodyLiteral.withUnsafeBytes { try body([.bytes(ids), .bytes($0)] + keyParameters) }
        }
    }

    /// Drops the literals of an `INSERT … unnest` chunk once sent, keeping the records for a replay.
    mutating func sent() {
        idLiteral = []
        bodyLiteral = []
        keyLiterals = []
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
