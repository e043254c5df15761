import Foundation

/// Times work and prints comparison tables: what every Strata benchmark executable shares.
public enum Bench {
    /// This process's resource usage so far (`getrusage(RUSAGE_SELF)`).
    private static var usage: rusage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    /// This process's CPU time so far (user and system, all threads), in seconds.
    public static var cpuSeconds: Double {
        let usage = usage
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// This process's page faults so far: minor (the page was in memory, only mapped) and major (read from disk).
    public static var pageFaults: (minor: Int, major: Int) {
        let usage = usage
        return (Int(usage.ru_minflt), Int(usage.ru_majflt))
    }

    /// This process's peak resident memory so far (`ru_maxrss`: KiB on Linux, bytes on Darwin).
    public static var peakResident: Int { Int(usage.ru_maxrss) }

    /// Runs `body` once and returns the elapsed seconds.
    public static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Runs `body` `repetitions` times and returns the fastest elapsed seconds (the least disturbed run).
    public static func best(of repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<repetitions { best = min(best, try time(body)) }
        return best
    }

    /// How many rounds a benchmark runs each side for, alternating baseline and Strata (see
    /// ``interleaved(rounds:baseline:strata:)``): `--rounds N` on the command line, else the environment variable
    /// `STRATA_BENCH_ROUNDS`, else 3 (1 with `--quick`).
    public static var rounds: Int {
        let arguments = CommandLine.arguments
        if let flag = arguments.firstIndex(of: "--rounds"), flag + 1 < arguments.count,
            let count = Int(arguments[flag + 1]), count > 0
        {
            return count
        }
        if let count = ProcessInfo.processInfo.environment["STRATA_BENCH_ROUNDS"].flatMap(Int.init), count > 0 {
            return count
        }
        return arguments.contains("--quick") ? 1 : 3
    }

    /// Times the baseline and Strata alternately, `rounds` times each, and keeps the fastest time of each side
    /// (the least disturbed run): neither side pays alone for a cold cache or a burst of other work.
    /// - Returns: The best seconds of each side.
    public static func interleaved(
        rounds: Int = Bench.rounds, baseline: () throws -> Void, strata: () throws -> Void
    ) rethrows -> (baseline: Double, strata: Double) {
        var best = (baseline: Double.infinity, strata: Double.infinity)
        for _ in 0..<max(rounds, 1) {
            best.baseline = min(best.baseline, try time(baseline))
            best.strata = min(best.strata, try time(strata))
        }
        return best
    }

    /// A fresh temporary folder.
    public static func temporaryFolder(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "/strata-bench-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs a `/bin/sh` command and returns its standard output.
    @discardableResult
    public static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    /// Formats seconds per operation in a readable unit.
    public static func perOperation(_ seconds: Double, _ count: Int) -> String {
        let each = seconds / Double(count)
        if each < 1e-6 { return String(format: "%.0f ns", each * 1e9) }
        if each < 1e-3 { return String(format: "%.2f µs", each * 1e6) }
        return String(format: "%.2f ms", each * 1e3)
    }
}

/// One line of a comparison: Strata's time, the baseline's time, and the ratio.
public struct Comparison {
    /// What `strata` and `baseline` measure.
    public enum Unit: String, Sendable {
        /// Seconds for all operations: the ratio is how many times faster Strata is.
        case seconds
        /// Bytes of output (a compressed size): the ratio is how many times smaller Strata's is.
        case bytes
    }

    public var name: String
    public var operations: Int
    public var strata: Double
    public var baseline: Double
    public var target: Double?
    /// The default is ``Unit/seconds``.
    public var unit: Unit

    public init(
        _ name: String, operations: Int, strata: Double, baseline: Double, target: Double? = nil, unit: Unit = .seconds
    ) {
        self.name = name
        self.operations = operations
        self.strata = strata
        self.baseline = baseline
        self.target = target
        self.unit = unit
    }

    /// How many times faster (or smaller) Strata is: baseline / Strata.
    public var speedup: Double { baseline / strata }

    /// `value` (seconds or bytes for all operations) per operation, readable.
    func perOperation(_ value: Double) -> String {
        switch unit {
        case .seconds: Bench.perOperation(value, operations)
        case .bytes: String(format: "%.2f MB", value / Double(operations) / 1e6)
        }
    }

    /// Prints the rows as a table, and appends them as JSON lines to the file `STRATA_BENCH_JSON` names, when it
    /// is set (see ``ResultLog``): what `Scripts/bench.sh` collects, so nothing is parsed from this text.
    public static func printTable(_ rows: [Comparison], baselineName: String, ratioName: String = "speedup") {
        ResultLog.append(rows, baselineName: baselineName)
        let header = ["benchmark", "ops", "Strata/op", "\(baselineName)/op", ratioName, "target", "met"]
        let lines = rows.map { row -> [String] in
            [
                row.name, "\(row.operations)", row.perOperation(row.strata), row.perOperation(row.baseline),
                String(format: row.unit == .bytes ? "%.4fx" : "%.1fx", row.speedup),
                row.target.map { String(format: row.unit == .bytes ? ">= %.4fx" : ">= %.1fx", $0) } ?? "-",
                row.target.map { row.speedup >= $0 ? "yes" : "NO" } ?? "-",
            ]
        }
        let all = [header] + lines
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for (index, line) in all.enumerated() {
            print(
                line.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                    separator: "  "))
            if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
    }
}

/// The record the records benchmarks store: about 127 bytes of JSON.
public struct Person: Codable, Identifiable, Sendable {
    public var id: String
    public var name: String
    public var email: String
    public var age: Int
    public var tags: [String]
}

/// The `index`th benchmark record.
public func person(_ index: Int) -> Person {
    Person(
        id: String(format: "person-%07d", index), name: "Person Number \(index) Lastname",
        email: "person\(index)@example.com",
        age: 18 + index % 70, tags: ["tag\(index % 7)", "group\(index % 13)", index % 2 == 0 ? "even" : "odd"])
}
