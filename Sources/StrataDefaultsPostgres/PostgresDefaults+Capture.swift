import Foundation
public import StrataCore
import StrataDefaults
import StrataPostgresClient

// A capture of the defaults tier on PostgreSQL: every suite of the schema's table, read in one statement (one
// snapshot), each written as the suite file a `DefaultsStore` keeps (`defaults/<suite>.plist`, `bplist00`), so that
// a capture of a shared store restores into a one-machine store like any other.
extension PostgresDefaults: TierCapturing {
    /// Writes every suite of the schema into `sink` as a binary property-list file.
    /// - Returns: The files written (nothing is left out).
    /// - Throws: ``/StrataCore/StorageError``: the server's errors, `.corrupt` for a stored value that is not a
    ///   property list, or the sink's.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        let rows = try pool.with { connection in
            let result = try connection.query(PostgresDefaultsSQL.everySuite, operation: "capture")
            return try (0..<result.rowCount).map { row in
                let key = result.text(row, 1)
                return (suite: result.text(row, 0), key: key, value: try hex(result.text(row, 2), key: key))
            }
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
