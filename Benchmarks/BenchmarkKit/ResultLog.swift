import Foundation

/// Machine-readable benchmark results: one JSON object per ``Comparison``, one per line, appended to the file
/// the environment variable `STRATA_BENCH_JSON` names (nothing is written when it is unset).
///
/// Each line holds `suite` (the executable's name, such as `strata-bench-secrets`), `name`, `operations`,
/// `strata` and `baseline` (seconds for all operations), `ratio` (baseline time / Strata time: above 1, Strata is
/// faster), `target` (the ratio to reach, or `null`), `baselineName`, `round` (`STRATA_BENCH_ROUND`, or 0), and
/// `unit` (`seconds`, or `bytes` for a row of compressed sizes, whose ratio is how many times smaller Strata's is).
/// `Scripts/bench-report.py` turns the lines of several rounds into medians, ranges, a table and a chart.
public enum ResultLog {
    /// The environment variable that names the file.
    public static let environmentVariable = "STRATA_BENCH_JSON"

    /// Appends `rows` to the log, when there is one.
    public static func append(_ rows: [Comparison], baselineName: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[environmentVariable], !path.isEmpty, !rows.isEmpty else { return }
        let suite = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        let round = environment["STRATA_BENCH_ROUND"].flatMap(Int.init) ?? 0
        var text = ""
        for row in rows {
            var object: [String: Any] = [
                "suite": suite, "name": row.name, "operations": row.operations, "strata": row.strata,
                "baseline": row.baseline, "ratio": row.speedup, "baselineName": baselineName, "round": round,
                "unit": row.unit.rawValue,
            ]
            object["target"] = row.target ?? NSNull()
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
                continue
            }
            text += String(decoding: data, as: UTF8.self) + "\n"
        }
        // One write with O_APPEND: lines of concurrent writers never interleave within a line.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else {
            FileHandle.standardError.write(Data("cannot append results to \(path)\n".utf8))
            return
        }
        defer { close(fd) }
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    }
}
