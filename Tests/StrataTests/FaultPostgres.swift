import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of the fleet fault tests' own (`Scripts/postgres.sh start`), frozen and restarted under the
/// workers. The shared test server stays out of it: other suites use that one meanwhile, and would fail with it. One
/// per test process, started by the first test that asks for it and stopped when the process exits.
final class FaultPostgres: Sendable {
    /// Its connection string.
    let url: String
    /// Its folder (`STRATA_POSTGRES_DIR` for the script).
    let directory: String

    /// The server, started on first use.
    static let shared = Result { try FaultPostgres() }

    /// The folder of the server started, for the exit handler.
    private static let started = Mutex<String?>(nil)

    private init() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-fault-postgres-\(getpid()).env"
        ).path
        defer { try? FileManager.default.removeItem(atPath: exports) }
        try FaultScripts.run("postgres.sh", ["start"], output: exports, timeout: 120)
        var found: [String: String] = [:]
        for line in try String(contentsOfFile: exports, encoding: .utf8).split(separator: "\n") {
            let parts = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if parts.count == 2 { found[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
        }
        url = found["STRATA_POSTGRES_URL"] ?? ""
        directory = found["STRATA_POSTGRES_DIR"] ?? ""
        Self.started.withLock { $0 = directory }
        atexit {
            guard let directory = FaultPostgres.started.withLock({ $0 }) else { return }
            try? FaultScripts.run("postgres.sh", ["stop"], environment: ["STRATA_POSTGRES_DIR": directory], timeout: 60)
        }
    }

    /// Runs `Scripts/postgres.sh VERB ARGUMENTS` on this server (`crash`, `resume`, `freeze SECONDS`, `thaw`).
    func run(_ verb: String, _ arguments: String...) throws {
        try FaultScripts.run("postgres.sh", [verb] + arguments, environment: ["STRATA_POSTGRES_DIR": directory])
    }

    /// Ends every session that holds an advisory lock, as a network cut of those clients would (the server and the
    /// other sessions go on).
    /// - Returns: How many sessions it ended.
    func terminateLockHolders() throws -> Int {
        let output = directory + "/terminated-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try FaultScripts.run(
            "postgres.sh", ["terminate-lock-holders"], environment: ["STRATA_POSTGRES_DIR": directory], output: output)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Whether it runs: a stopped server has no `postmaster.pid`.
    var isRunning: Bool { FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") }

    /// Puts it back in service, whatever a test left it in: thawed, and started again if it was stopped.
    func restore() {
        if isRunning { try? run("thaw") } else { try? run("resume") }
    }
}
