import Foundation
package import StrataCatalog
package import StrataCore
import StrataPostgres
import StrataPostgresClient

// Recording: each change one statement that also bumps the change counter; several changes one transaction.
extension PostgresCatalog {
    package func recordedPlacement(comparedWith location: StorageLocation) throws -> RecordedPlacement? {
        try self.location(of: location.key).map {
            RecordedPlacement(tier: $0.tier, kind: $0.kind, isUnchanged: $0.hasPlacement(of: location))
        }
    }

    /// Records `changes` in one transaction (one statement when there is one change). Every commit of PostgreSQL is
    /// durable (with its default `synchronous_commit`), so `durable` asks nothing more.
    package func record(_ changes: [CatalogChange], durable: Bool) throws {
        guard !changes.isEmpty else { return }
        try inTransaction(changes.count > 1) { connection in
            for change in changes {
                let (sql, parameters) = Self.statement(of: change)
                do {
                    _ = try connection.query(sql, parameters, operation: "record")
                } catch let error as StorageError {
                    throw error.attributed(tier: nil, key: change.key)
                }
            }
        }
    }

    /// The statement of one change and its parameters.
    static func statement(of change: CatalogChange) -> (String, [PostgresParameter]) {
        switch change {
        case .set(let location):
            return (
                PostgresCatalogSQL.set,
                [
                    .text(location.key), .text(String(location.tier.catalogCode)), .text(location.backend),
                    .text(location.ruleID), location.kind.map { .text(String($0.catalogCode)) } ?? .null,
                    location.contentType.map { .text($0) } ?? .null, .text(String(location.size)),
                    .text(String(location.modified.timeIntervalSince1970)),
                ]
            )
        case .remove(let key):
            return (PostgresCatalogSQL.remove, [.text(key)])
        case .intent(let key, let from, let to):
            return (
                PostgresCatalogSQL.intent,
                [.text(key), from.map { .text(String($0.catalogCode)) } ?? .null, .text(String(to.catalogCode))]
            )
        case .settle(let key):
            return (PostgresCatalogSQL.settle, [.text(key)])
        }
    }

    package func recordRewrite(of keys: [String], in tier: Tier, backend: String) throws {
        guard !keys.isEmpty else { return }
        let now = String(Date().timeIntervalSince1970)
        try inTransaction(keys.count > 1) { connection in
            for key in keys {
                _ = try connection.query(
                    PostgresCatalogSQL.rewrite,
                    [.text(key), .text(String(tier.catalogCode)), .text(backend), .text(now)],
                    operation: "record")
            }
        }
    }

    /// Runs `body` on the calling thread's connection, inside `BEGIN` … `COMMIT` when `transaction` says so.
    func inTransaction(_ transaction: Bool, _ body: (PostgresConnection) throws -> Void) throws {
        try withConnection { connection in
            guard transaction else { return try body(connection) }
            try connection.transaction(operation: "record") { try body(connection) }
        }
    }

    // MARK: Observation

    /// Always: a shared catalog cannot tell cheaply whether some machine observes the store, so every write through
    /// a tier's own API is recorded (a statement each), and observers anywhere hear of it.
    package var isObserved: Bool { true }

    /// Nothing to count: see ``isObserved``.
    package func beginObserving() {}

    /// Nothing to count: see ``isObserved``.
    package func endObserving() {}

    // MARK: Capture

    /// The catalog's steps in a capture (see ``/StrataCatalog/CatalogEngine/beginCapture()``): at the instant, the
    /// snapshot the capture's tiers on this server and schema share; after it, the catalog read from that snapshot
    /// and handed to the sink as the file catalog's log (`catalog/log`: one `set` per key, one `intent` per move
    /// under way), which a restore reads into any catalog.
    package func beginCapture() -> any TierCapture {
        PostgresSnapshotCapture(configuration.client, tier: nil) { connection, sink in
            try self.writeLog(from: connection, into: sink)
        }
    }

    private func writeLog(from connection: PostgresConnection, into sink: any CaptureSink) throws -> CaptureReport {
        let rows = try connection.query(PostgresCatalogSQL.intents, operation: "capture")
        var intents: [CatalogIntent] = []
        for row in 0..<rows.rowCount {
            if let intent = try Self.intent(key: rows.text(row, 0), rows, row: row, column: 1, at: location) {
                intents.append(intent)
            }
        }
        let image = try StorageCatalog.image(of: try locations(prefix: "", on: connection), intents: intents)
        let now = Date().timeIntervalSince1970
        let file = CapturedFile(
            path: StorageCatalog.capturedLogPath, tier: nil, mode: 0o600, size: Int64(image.count),
            modificationTime: CapturedFile.Timespec(
                seconds: Int64(now), nanoseconds: Int32((now - now.rounded(.down)) * 1e9)))
        try sink.add(file, contents: image)
        var report = CaptureReport()
        report.count(file)
        return report
    }
}
