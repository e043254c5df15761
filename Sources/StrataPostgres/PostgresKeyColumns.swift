import StrataCore
import StrataPostgresClient
import StrataRecords

/// The key columns of one collection's table: one `bytea NOT NULL` column per indexed field, holding the field's
/// `PostgresIndexKey`, which every write computes from the body it sends. Each column's comment holds its
/// field's path (the column's name may end in a hash instead). Read from the catalog, so that every process
/// writes the columns that exist, whoever added them.
struct PostgresKeyColumns: Equatable, Sendable {
    /// The indexed fields, in the order of their columns.
    let fields: [Field]
    /// The fields' paths as member names, to find them in a body.
    private let paths: [[String]]
    /// The columns' names, in order: worked out once (a name costs more to make than a write's other SQL).
    let columns: [String]
    /// `, k__a, k__b` for a column list after `id, body` (empty when there are none).
    let columnList: String

    init(_ fields: [Field]) {
        self.fields = fields
        paths = fields.map(\.components)
        columns = fields.map(Self.column)
        columnList = columns.map { ", " + $0 }.joined()
    }

    static let none = PostgresKeyColumns([])

    var isEmpty: Bool { fields.isEmpty }
    var count: Int { fields.count }

    /// The column of a field's key: `k__<path, dots as __>`, or a hashed name past 63 bytes (as index names).
    static func column(_ field: Field) -> String { "k" + Index.field(field).name(in: "").dropFirst() }

    /// The column of `field`, if it has one.
    func column(of field: Field) -> String? { fields.contains(field) ? Self.column(field) : nil }

    /// The keys of a body's fields, in column order.
    /// - Parameters:
    ///   - id: The record's id, and `collection` its collection, for the error.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument`, naming the collection and the record, when the
    ///   body is not valid JSON (or nests deeper than the records tier's JSON reader follows).
    func keys(of body: UnsafeRawBufferPointer, id: String, in collection: String) throws -> [[UInt8]] {
        guard !fields.isEmpty else { return [] }
        do {
            return try JSONExactValue.fields(paths, in: body).map(PostgresIndexKey.key)
        } catch {
            var failure = StorageError(
                .invalidArgument, "a record's body cannot be read for its index keys: \(error)", tier: .records,
                key: id, recovery: "Write records through their collection's encoder")
            failure.collection = collection
            throw failure
        }
    }

    /// The key columns of the fields that hold one of `fields` or lie inside one of them: those whose keys change
    /// when the fields do.
    func overlapping(_ changed: [Field]) -> PostgresKeyColumns {
        PostgresKeyColumns(
            fields.filter { field in
                changed.contains { other in
                    let (a, b) = (field.components, other.components)
                    return a.starts(with: b) || b.starts(with: a)
                }
            })
    }

    /// How the guard of a body-changing `UPDATE` (``unchangedCondition(_:)``) fails when the table's key columns are
    /// not these: the start of the text it fails to read as a boolean (`22P02`), which
    /// ``PostgresRecordEngine/isKeyColumnMismatch(_:)`` recognizes.
    static let changedMarker = "strata: the key columns changed"

    /// A condition for the `WHERE` of an `UPDATE` that changes bodies: true while the table `c_<collection>` has
    /// exactly these key columns, and otherwise an error (see ``changedMarker``), so that the writer reads the
    /// columns again and runs again. An `INSERT` that leaves out a column another process added fails by itself
    /// (`NOT NULL`), but an `UPDATE` leaves a column it does not name as it was: without this, a process that read
    /// the columns before another indexed a field would change a body and leave the field's key stale. Evaluated
    /// once per statement (a catalog lookup).
    func unchangedCondition(_ collection: String) -> String {
        let present =
            #"(SELECT coalesce(string_agg(attname::text, ',' ORDER BY attname), '') FROM pg_attribute WHERE attrelid = 'c_\#(collection)'::regclass AND attnum > 0 AND NOT attisdropped AND attname LIKE 'k\_\_%')"#
        // Unquoted identifiers: PostgreSQL folds them to lower case (field names are ASCII).
        let expected = columns.map { $0.lowercased() }.sorted().joined(separator: ",")
        return
            "(CASE WHEN \(present) = '\(expected)' THEN true ELSE ('\(Self.changedMarker): ' || \(present))::boolean END)"
    }

    /// The catalog query for a table's key columns and their fields: `$1` is the table's name.
    static let catalogSQL =
        #"SELECT col_description(a.attrelid, a.attnum) FROM pg_attribute a WHERE a.attrelid = to_regclass($1::text) AND a.attnum > 0 AND NOT a.attisdropped AND a.attname LIKE 'k\_\_%' ORDER BY a.attnum"#

    /// Reads a collection's key columns from the catalog (none for a table that does not exist).
    static func read(_ collection: String, on connection: PostgresConnection) throws -> PostgresKeyColumns {
        let result = try connection.query(
            catalogSQL, [.text("c_" + collection)], operation: "open", collection: collection)
        return PostgresKeyColumns((0..<result.rowCount).map { Field(result.text($0, 0)) })
    }
}
