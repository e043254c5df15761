import BenchmarkKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Splits a run's cost between the client (this process's CPU time) and the server (the CPU time of every process
/// of the PostgreSQL server: the postmaster and its children, its backends, WAL writer and checkpointer included),
/// read from `/proc/<pid>/schedstat` (nanoseconds), plus the children that ended meanwhile (a backend of another
/// program's connection), from the postmaster's `/proc/<pid>/stat` (clock ticks). The server's share is known only
/// for a server on this machine (Linux): elsewhere it is `nil`. The server's figure includes whatever else it did
/// meanwhile (an autovacuum worker analyzing the tables just filled), which the rounds' median absorbs.
struct CPUSplit {
    /// The postmaster of the server, found as the parent of a backend.
    let postmaster: Int32?

    /// The split for the server of this backend (`pg_backend_pid()` of any connection to it).
    init(backend: Int32) {
        postmaster = Self.parent(of: backend)
    }

    /// One measured run: wall, client CPU and server CPU seconds.
    struct Sample {
        var wall: Double
        var client: Double
        var server: Double?
    }

    /// Runs `body` once and measures it.
    func measure(_ body: () throws -> Void) rethrows -> Sample {
        let server = serverSeconds()
        let client = Self.clientSeconds()
        let wall = try Bench.time(body)
        let clientAfter = Self.clientSeconds()
        let serverAfter = serverSeconds()
        return Sample(
            wall: wall, client: clientAfter - client,
            server: server.flatMap { before in serverAfter.map { $0 - before } }
        )
    }

    /// This process's CPU seconds, every thread.
    static func clientSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The server's CPU seconds: the postmaster's and its children's.
    func serverSeconds() -> Double? {
        guard let postmaster, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return nil
        }
        var nanoseconds = Self.runNanoseconds(postmaster) ?? 0
        for entry in entries {
            guard let pid = Int32(entry), Self.parent(of: pid) == postmaster else { continue }
            nanoseconds += Self.runNanoseconds(pid) ?? 0
        }
        // The children that ended: cutime and cstime, fields 16 and 17 of the postmaster's stat.
        let ended = Self.statFields(postmaster).map {
            $0.count > 14 ? (Double($0[13]) ?? 0) + (Double($0[14]) ?? 0) : 0
        }
        return Double(nanoseconds) / 1e9 + (ended ?? 0) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of `/proc/<pid>/stat` after the command's closing parenthesis (field 3, the state, first).
    private static func statFields(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The parent of a process (field 4 of its stat).
    private static func parent(of pid: Int32) -> Int32? {
        statFields(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
    }

    /// One process's CPU seconds (a server's backend), from `/proc/<pid>/schedstat`; `nil` where there is none.
    static func processSeconds(_ pid: Int32) -> Double? {
        runNanoseconds(pid).map { Double($0) / 1e9 }
    }

    /// The time a process has run on a CPU, from `/proc/<pid>/schedstat`.
    private static func runNanoseconds(_ pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { UInt64($0) }
    }
}
