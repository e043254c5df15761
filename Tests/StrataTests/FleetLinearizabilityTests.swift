import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Four worker processes on two machines (two roots) sharing one store — the PostgreSQL catalog
/// and records, S3 files — put (records and files values, so puts move keys), read, move, delete and list three hot
/// keys at random for a few seconds; every key's history must be linearizable, and afterwards every key is in at
/// most one tier and the catalog is sound. The second test kills a random worker about every half second and starts
/// it again: its last operation has no response, and may have taken effect or not.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "").isEmpty
            && !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_S3_URL and STRATA_POSTGRES_URL (Scripts/test.sh starts both)"),
    .serialized)
struct FleetLinearizabilityTests {
    static let workers = 4
    /// How long the workers run: 5 s, or `STRATA_FLEET_SECONDS` for a longer soak.
    static let seconds = ProcessInfo.processInfo.environment["STRATA_FLEET_SECONDS"].flatMap { UInt64($0) } ?? 5

    @Test func fourWorkersOnTwoMachinesAreLinearizable() throws {
        try run(killing: false)
    }

    @Test func workersKilledAndRestartedStayLinearizable() throws {
        try run(killing: true)
    }

    func run(killing: Bool) throws {
        let fleet = try Fleet()
        let executable = try TestExecutables.url(named: "strata-test-child")
        let logs = fleet.directory.appending("logs")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let seed = UInt64.random(in: 1...UInt64.max)
        // Opening the store once creates its schema and tables, so that the workers do not race to.
        _ = try fleet.machine("a")
        var incarnations = [Int](repeating: 0, count: Self.workers)
        func start(_ worker: Int, until deadline: UInt64) throws -> ChildProcess {
            try ChildProcess(
                executable,
                [
                    "fleet-worker", fleet.directory.appending(worker % 2 == 0 ? "a" : "b"), fleet.recordsURL,
                    fleet.filesURL, fleet.postgres.schema, "\(worker)", "\(incarnations[worker])", "\(deadline)",
                    "\(seed)", logs + "/w\(worker)-\(incarnations[worker]).jsonl",
                ])
        }
        let deadline = LinearizabilityLogLine.now() + Self.seconds * 1_000_000_000 + 2_000_000_000
        var children = try (0..<Self.workers).map { try start($0, until: deadline) }
        for child in children { try child.waitForLine(timeout: 60) { $0 == "ready" } }
        var kills = 0
        var generator = SeededGenerator(seed: seed)
        if killing {
            while LinearizabilityLogLine.now() + 700_000_000 < deadline {
                usleep(UInt32.random(in: 300_000...700_000, using: &generator))
                let worker = Int.random(in: 0..<Self.workers, using: &generator)
                children[worker].kill(SIGKILL)
                _ = children[worker].wait()
                kills += 1
                incarnations[worker] += 1
                children[worker] = try start(worker, until: deadline)
                try children[worker].waitForLine(timeout: 60) { $0 == "ready" }
            }
        }
        for child in children {
            let result = child.wait()
            #expect(result.status == 0 && !result.wasSignalled, "a worker failed: \(result.failureSummary)")
        }

        // The workers' histories, merged, and one last read of each key from a machine opened afterwards.
        var text = ""
        for file in try FileManager.default.contentsOfDirectory(atPath: logs) {
            text += try String(contentsOfFile: logs + "/" + file, encoding: .utf8)
        }
        var history = try LinearizabilityLogLine.history(from: text)
        let after = try fleet.machine("c")
        for key in FleetWorkload.keys {
            let invoked = LinearizabilityLogLine.now()
            let value = try after.data(for: key).map(FleetWorkload.identifier(of:))
            history.append(
                LinearizabilityOperation(
                    process: -1, key: key, call: .get, response: .value(value), invoked: invoked,
                    responded: LinearizabilityLogLine.now()))
        }
        let errors = history.filter { if case .failed? = $0.response { true } else { false } }
        let unanswered = history.count(where: { $0.response == nil })
        let clock = ContinuousClock()
        var report: LinearizabilityReport?
        let elapsed = try clock.measure { report = try LinearizabilityChecker().check(history) }
        let checked = try #require(report)
        print(
            "fleet (killing: \(killing), seed \(seed)): \(history.count) operations, \(unanswered) unanswered, "
                + "\(errors.count) errors, \(kills) kills; checked in \(elapsed)")
        let kinds = Dictionary(grouping: history) { "\($0.call)".prefix { $0 != "(" } }.mapValues(\.count)
        print("  by call: \(kinds.sorted { $0.key < $1.key })")
        for error in errors.prefix(5) { print("  error: \(error.call) \(error.response!)") }
        #expect(checked.isLinearizable, "\(checked)")
        #expect(history.count > 40, "too few operations to tell anything: \(history.count)")
        // The check is not vacuous: the same history with one read's answer changed to a value no put wrote fails.
        if let read = history.firstIndex(where: { $0.call == .get && $0.response != nil }) {
            var tampered = history
            tampered[read].response = .value("never-written")
            #expect(try LinearizabilityChecker().check(tampered).failures.map(\.key) == [history[read].key])
        }

        for key in FleetWorkload.keys {
            let tiers = try tiersHolding(key, in: after)
            #expect(tiers.count <= 1, "\(key) is in \(tiers)")
            #expect(try after.location(of: key)?.tier == tiers.first, "\(key): the catalog and the tiers disagree")
        }
        let verified = try after.verifyCatalog()
        #expect(verified.isSound, "\(verified.lines)")
    }
}
