import Foundation
public import StrataCore
import StrataDefaults
import StrataPostgres
import StrataPostgresClient

// A capture of the defaults tier on PostgreSQL: every suite of the schema's table, read from the capture's snapshot
// (in a capture of a whole store, the one every tier on the server and schema reads: `PostgresSnapshotCapture`), each
// written as the suite file a `DefaultsStore` keeps (`defaults/<suite>.plist`, `bplist00`), so that a capture of a
// shared store restores into a one-machine store like any other.
extension PostgresDefaults: TierCapturing {
    /// Writes every suite of the schema into `sink` as a binary property-list file, from one snapshot.
    /// - Returns: The files written (nothing is left out).
    /// - Throws: ``/StrataCore/StorageError``: the server's errors, `.corrupt` for a stored value that is not a
    ///   property list, or the sink's.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try beginCapture(into: sink, root: root).completed(into: sink)
    }

    /// The steps of a capture: the snapshot at the instant, the suites copied from it after.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        PostgresSnapshotCapture(configuration.client, tier: .defaults) { connection, sink in
            try self.writeSuites(from: connection, into: sink)
        }
    }

    private func writeSuites(from connection: PostgresConnection, into sink: any CaptureSink) throws -> CaptureReport {
        let result = try connection.query(PostgresDefaultsSQL.everySuite, operation: "capture")
        let rows = try (0..<result.rowCount).map { row in
            let key = result.text(row, 1)
            return (suite: result.text(row, 0), key: key, value: try hex(result.text(row, 2), key: key))
        }
        var suites: [String: [ExactString: PropertyListValue]] = [:]
        for row in rows { suites[row.suite, default: [:]][ExactString(row.key)] = try decode(row.value, key: row.key) }
        var report = CaptureReport()
        let now = Date().timeIntervalSince1970
        for (suite, values) in suites.sorted(by: { $0.key < $1.key }) {
            let contents = [UInt8](PropertyListFormat.binary.encode(values))
            let file = CapturedFile(
                path: Tier.defaults.directoryName + "/" + suite + ".plist", tier: .defaults, mode: 0o600,
                size: Int64(contents.count),
                modificationTime: CapturedFile.Timespec(seconds: Int64(now), nanoseconds: 0))
            try sink.add(file, contents: contents)
            report.count(file)
        }
        return report
    }
}
