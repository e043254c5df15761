import StrataRecords

/// One collection's key columns (``PostgresKeyColumns``) with the statements of its single-record writes, built once
/// when the columns are read from the catalog: a write sends SQL it did not build (building it, with the key
/// columns' names, cost more instructions than the rest of the client's part of an upsert).
struct PostgresCollectionSQL: Sendable {
    /// The collection's key columns.
    let keys: PostgresKeyColumns
    /// The write of one record in each mode (``PostgresSession/writeSQL(_:mode:keys:)``): `$1` is the id, `$2` the
    /// JSON body, `$3`… its keys.
    private let writes: [String]
    /// The same writes announcing the change in their own statement, `WITH w AS (<write> RETURNING 1) SELECT
    /// pg_notify(<channel>, <payload>) FROM w`, the channel and payload the two parameters after the keys: what a
    /// write in a transaction of its own sends (``PostgresRecordEngine/writeOne(_:id:body:mode:)``).
    private let announcedWrites: [String]

    init(_ collection: String, keys: PostgresKeyColumns) {
        self.keys = keys
        writes = Self.modes.map { PostgresSession.writeSQL(collection, mode: $0, keys: keys).sql }
        let channel = keys.count + 3
        announcedWrites = writes.map {
            "WITH w AS (\($0) RETURNING 1) SELECT pg_notify($\(channel)::text, $\(channel + 1)::text) FROM w"
        }
    }

    /// The modes, in the order of ``writes``.
    private static let modes: [RecordWriteMode] = [.insert, .upsert, .update]

    private static func position(_ mode: RecordWriteMode) -> Int {
        switch mode {
        case .insert: 0
        case .upsert: 1
        case .update: 2
        }
    }

    /// The statement writing one record in `mode`.
    func write(_ mode: RecordWriteMode) -> String { writes[Self.position(mode)] }

    /// The statement writing one record in `mode` and announcing it.
    func announcedWrite(_ mode: RecordWriteMode) -> String { announcedWrites[Self.position(mode)] }
}
