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

/// Four worker processes on two machines (two roots declared shared) sharing one store — the PostgreSQL catalog,
/// records, defaults and secrets, S3 files — put (preferences, credentials, records and files values, so puts move
/// keys across every tier), read, move, delete and list three hot keys at random for a few seconds; every key's history must be linearizable, and afterwards (once interrupted moves are settled) every key is
/// in at most one tier, where the catalog says, and the catalog is sound.
///
/// The other tests do the same under a fault (``FleetFault``): workers killed at random or in the middle of moves, the
/// PostgreSQL server frozen or restarted (a server of the suite's own, ``FaultPostgres``, so that other suites' tests
/// are not hit), the S3 gateway killed. A killed worker's last operation has no response, and one that failed may
/// have taken effect or not; each test also checks that its fault happened and was felt. `Scripts/fleet-soak.sh` runs
/// the fault tests many times in a row.
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
    /// How long an operation must take, across an outage, to count as held up by it.
    static let heldUp: UInt64 = 200_000_000

    @Test func fourWorkersOnTwoMachinesAreLinearizable() throws {
        try run(.none)
    }

    @Test func workersKilledAndRestartedStayLinearizable() throws {
        try run(.killing)
    }

    @Test func workersKilledMidMoveStayLinearizable() throws {
        try run(.killingMidMove)
    }

    @Test func postgresFrozenAndThawedStaysLinearizable() throws {
        try run(.postgresFrozen)
    }

    @Test func postgresRestartedStaysLinearizable() throws {
        try run(.postgresRestarted)
    }

    @Test func gatewayCrashedAndResumedStaysLinearizable() throws {
        try run(.gatewayCrashed)
    }

    @Test func postgresSessionsOfLockHoldersEndedStaysLinearizable() throws {
        try run(.postgresSessionsTerminated)
    }

    func run(_ fault: FleetFault) throws {
        // The workers' clients retry a few times only: no other suite takes the gateway down under them, and the
        // gateway's own fault waits for every other suite that needs it up.
        let gateway = S3GatewayHold(fault == .gatewayCrashed ? .outage : .steady)
        defer { withExtendedLifetime(gateway) {} }
        let server = fault.needsOwnServer ? try FaultPostgres.shared.get() : nil
        defer { fault.restore(server) }
        let fleet = try Fleet(server: server?.url)
        let executable = try TestExecutables.url(named: "strata-test-child")
        let logs = fleet.directory.appending("logs")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let seed = UInt64.random(in: 1...UInt64.max)
        // Both roots declared shared; opening the store once creates its schema and tables, so that the workers do
        // not race to.
        try fleet.sharedMachine("a")
        try fleet.sharedMachine("b")
        var incarnations = [Int](repeating: 0, count: Self.workers)
        func start(_ worker: Int, until deadline: UInt64) throws -> ChildProcess {
            try ChildProcess(
                executable,
                [
                    "fleet-worker", fleet.directory.appending(worker % 2 == 0 ? "a" : "b"), "\(worker)",
                    "\(incarnations[worker])", "\(deadline)", "\(seed)",
                    logs + "/w\(worker)-\(incarnations[worker]).jsonl",
                ], environment: server.map { [RecordEngineKind.postgresVariable: $0.url] })
        }
        let deadline = LinearizabilityLogLine.now() + Self.seconds * 1_000_000_000 + 2_000_000_000
        var children = try (0..<Self.workers).map { try start($0, until: deadline) }
        for child in children { try child.waitForLine(timeout: 60) { $0 == "ready" } }
        var kills = 0
        var terminated = 0
        var generator = SeededGenerator(seed: seed)
        func restart(_ worker: Int) throws {
            children[worker].kill(SIGKILL)
            _ = children[worker].wait()
            kills += 1
            incarnations[worker] += 1
            children[worker] = try start(worker, until: deadline)
            try children[worker].waitForLine(timeout: 60) { $0 == "ready" }
        }
        switch fault {
        case .killing:
            while LinearizabilityLogLine.now() + 700_000_000 < deadline {
                usleep(UInt32.random(in: 300_000...700_000, using: &generator))
                try restart(Int.random(in: 0..<Self.workers, using: &generator))
            }
        case .killingMidMove:
            while LinearizabilityLogLine.now() + 700_000_000 < deadline {
                let worker = Int.random(in: 0..<Self.workers, using: &generator)
                // Its next move within a second, then a kill a few milliseconds into it.
                guard waitForMove(by: [children[worker]]) else { continue }
                usleep(UInt32.random(in: 0...40_000, using: &generator))
                try restart(worker)
            }
        case .postgresSessionsTerminated:
            while LinearizabilityLogLine.now() + 700_000_000 < deadline {
                // Any worker's next move within a second, then its session (and every other lock holder's) ended a
                // few milliseconds into it.
                guard waitForMove(by: children) else { continue }
                usleep(UInt32.random(in: 0...20_000, using: &generator))
                terminated += try server?.terminateLockHolders() ?? 0
                usleep(UInt32.random(in: 200_000...400_000, using: &generator))
            }
        case .none, .postgresFrozen, .postgresRestarted, .gatewayCrashed:
            break
        }
        let outages = try fault.outages(until: deadline, server: server, using: &generator)
        fault.restore(server)
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
        let after = try fleet.sharedMachine("c")
        for key in FleetWorkload.keys {
            let invoked = LinearizabilityLogLine.now()
            let value = try after.data(for: key).map(FleetWorkload.identifier(of:))
            history.append(
                LinearizabilityOperation(
                    process: -1, key: key, call: .get, response: .value(value), invoked: invoked,
                    responded: LinearizabilityLogLine.now()))
        }
        let errors = history.filter { if case .failed? = $0.response { true } else { false } }
        let unanswered = history.filter { $0.response == nil }
        let clock = ContinuousClock()
        var report: LinearizabilityReport?
        let elapsed = try clock.measure { report = try LinearizabilityChecker().check(history) }
        let checked = try #require(report)
        // The operations an outage held up: running across it, and failed or slow.
        let heldUp = history.filter { operation in
            let end = operation.responded ?? .max
            let failed = if case .failed? = operation.response { true } else { false }
            return outages.contains { operation.invoked <= $0.upperBound && end >= $0.lowerBound }
                && (failed || end - operation.invoked >= Self.heldUp)
        }
        // The workers killed in the middle of a move, or of a put (which may move the key).
        let killedMoving = unanswered.filter {
            switch $0.call {
            case .move, .put: true
            default: false
            }
        }
        print(
            "fleet (\(fault), seed \(seed)): \(history.count) operations, \(unanswered.count) unanswered "
                + "(\(killedMoving.count) moving), \(errors.count) errors, \(kills) kills, \(terminated) sessions "
                + "ended, \(outages.count) outages holding up \(heldUp.count) operations; checked in \(elapsed)")
        let kinds = Dictionary(grouping: history) { "\($0.call)".prefix { $0 != "(" } }.mapValues(\.count)
        print("  by call: \(kinds.sorted { $0.key < $1.key })")
        // The values reads saw, by the tier their size sends them to: every tier of the shared store is in play.
        let seen = history.compactMap { operation -> DataKind? in
            guard case .value(let identifier?)? = operation.response,
                let size = identifier.split(separator: ":").last.flatMap({ Int($0) })
            else { return nil }
            return FleetWorkload.value(id: "x", size: size).descriptor.kind
        }
        let refused = history.filter { if case .refused? = $0.response { true } else { false } }.count
        print(
            "  reads saw: \(Dictionary(grouping: seen, by: \.rawValue).mapValues(\.count).sorted { $0.key < $1.key }); "
                + "\(refused) refused (a value over a credential, or a credential moved)")
        if fault == .none {
            #expect(Set(seen) == [.preference, .credential, .relational, .file], "every tier is read back")
        }
        let messages = Dictionary(grouping: errors) { operation -> String in
            guard case .failed(let message)? = operation.response else { return "" }
            return String(message.prefix(160))
        }.mapValues(\.count)
        for (message, count) in messages.sorted(by: { $0.value > $1.value }).prefix(8) {
            print("  \(count) × \(message)")
        }
        #expect(checked.isLinearizable, "\(fault), seed \(seed): \(checked)")
        if !checked.isLinearizable {
            try keep(logs, of: fault, seed: seed, history: history, failures: checked.failures)
        }
        #expect(history.count > 40, "too few operations to tell anything: \(history.count)")
        // The check is not vacuous: the same history with one read's answer changed to a value no put wrote fails.
        if let read = history.firstIndex(where: { if case .value? = $0.response { true } else { false } }) {
            var tampered = history
            tampered[read].response = .value("never-written")
            let failing = Set(checked.failures.map(\.key)).union([history[read].key])
            #expect(Set(try LinearizabilityChecker().check(tampered).failures.map(\.key)) == failing)
        }
        // The fault happened, and the workers felt it.
        switch fault {
        case .none: break
        case .killing: #expect(kills > 0)
        case .killingMidMove:
            #expect(kills > 0)
            #expect(!killedMoving.isEmpty, "no worker was killed in the middle of a move")
        case .postgresSessionsTerminated:
            #expect(terminated > 0, "no session holding a lock was ended")
            #expect(!errors.isEmpty, "no operation failed when its session was ended")
        case .postgresFrozen, .postgresRestarted, .gatewayCrashed:
            #expect(!outages.isEmpty, "no outage within the run")
            #expect(!heldUp.isEmpty, "no operation was held up by the \(outages.count) outages")
        }

        let settled = try after.settleInterruptedMoves()
        if !settled.settled.isEmpty || !settled.problems.isEmpty { print("  final settle: \(settled.lines)") }
        #expect(settled.problems.isEmpty && settled.movingKeys.isEmpty, "\(settled.lines)")
        for key in FleetWorkload.keys {
            let tiers = try tiersHolding(key, in: after)
            #expect(tiers.count <= 1, "\(fault), seed \(seed): \(key) is in \(tiers)")
            let catalogued = try after.location(of: key)?.tier
            #expect(
                catalogued == tiers.first,
                "\(fault), seed \(seed): \(key): the catalog (\(String(describing: catalogued))) and the tiers disagree"
            )
        }
        let verified = try after.verifyCatalog()
        #expect(verified.isSound, "\(fault), seed \(seed): \(verified.lines)")
    }

    /// Waits up to a second for one of `children` to say it starts a move (a `moving` line printed from now on).
    /// - Returns: Whether one did.
    func waitForMove(by children: [ChildProcess]) -> Bool {
        let seen = children.map(\.lines.count)
        let limit = LinearizabilityLogLine.now() + 1_000_000_000
        while LinearizabilityLogLine.now() < limit {
            for (child, seen) in zip(children, seen)
            where child.lines.dropFirst(seen).contains(where: { $0.hasPrefix("moving ") }) {
                return true
            }
            usleep(1_000)
        }
        return false
    }

    /// Copies the workers' logs of a run that failed the check to `/tmp/strata-fleet-failures/FAULT-SEED`, and prints
    /// every operation on each failing key from 500 ms before its culprit's call to its response, errors in full.
    func keep(
        _ logs: String, of fault: FleetFault, seed: UInt64, history: [LinearizabilityOperation],
        failures: [LinearizabilityFailure]
    ) throws {
        let kept = "/tmp/strata-fleet-failures/\(fault)-\(seed)"
        try FileManager.default.createDirectory(
            atPath: "/tmp/strata-fleet-failures", withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: kept)
        try FileManager.default.copyItem(atPath: logs, toPath: kept)
        print("  the workers' logs: \(kept)")
        for failure in failures {
            let from = failure.culprit.invoked - min(failure.culprit.invoked, 500_000_000)
            let to = failure.culprit.responded ?? .max
            print("  \(failure.key), every operation from 500 ms before the culprit (ms after its call):")
            let near = history.filter { $0.key == failure.key && $0.invoked <= to && ($0.responded ?? .max) >= from }
            for operation in near.sorted(by: { $0.invoked < $1.invoked }) {
                func at(_ time: UInt64?) -> String {
                    time.map { String(format: "%.1f", (Double($0) - Double(failure.culprit.invoked)) / 1e6) } ?? "…"
                }
                print(
                    "    p\(operation.process) \(operation.call) → \(operation.response.map { "\($0)" } ?? "no response") "
                        + "[\(at(operation.invoked)), \(at(operation.responded))]")
            }
        }
    }
}
