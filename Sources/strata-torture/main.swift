// strata-torture: abuses every tier on purpose and prints what survived.
//
//   strata-torture --quick                 a bounded run for the test suite (seconds)
//   strata-torture [--kills 200] [--hostile 1000] [--contention 250] [--mixed 400] [--seed N]   the long run
//
// Scenarios: kill (a child writes and acknowledges; SIGKILL at seeded random moments; every acknowledged
// write is checked), contention (4 processes × M read-modify-writes of one counter), mixed (Storage, tiers' own
// APIs and the strata tool writing the same keys from 4 processes: no stale read, no copy left in two tiers, no
// acknowledged write lost; see Mixed.swift), faults (ENOSPC, EIO, EINTR
// and short writes at every system call of one write), hostile (damaged files of every format we read, fed to
// their readers in a child process so a crash is counted, not fatal).
import Foundation
import StrataCore
import StrataPostgres
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1])
    else { return fallback }
    return value
}

do {
    switch arguments.first {
    case "child-write": try childWrite(tier: arguments[1], root: arguments[2], start: Int(arguments[3]) ?? 0)
    case "child-contend":
        try childContend(tier: arguments[1], root: arguments[2], count: Int(arguments[3]) ?? 1)
        exit(0)
    case "child-mixed":
        try childMixed(
            role: MixedRole(rawValue: arguments[1]) ?? .storage, root: arguments[2], id: Int(arguments[3]) ?? 0,
            operations: Int(arguments[4]) ?? 1, tool: arguments[5])
        exit(0)
    case "child-hostile":
        try childHostile(format: arguments[1], count: Int(arguments[2]) ?? 10, seed: UInt64(arguments[3]) ?? 1)
        exit(0)
    default: break
    }
} catch {
    FileHandle.standardError.write(Data("strata-torture child: \(error)\n".utf8))
    exit(3)
}

/// Removes a scenario's root, and its schema on the server for the postgres tier.
func cleanUp(tier: String, root: String) {
    if tier == "postgres", let schema = try? tortureSchema(root) { _ = try? PostgresRecordEngine.dropStore(schema) }
    try? FileManager.default.removeItem(atPath: root)
}

let quick = arguments.contains("--quick")
let kills = option("--kills", quick ? 8 : 200)
let hostileCount = option("--hostile", quick ? 40 : 1000)
let contention = option("--contention", quick ? 25 : 250)
let seed = UInt64(option("--seed", 20_261_130))
let me = URL(fileURLWithPath: CommandLine.arguments[0])
// The records tier on PostgreSQL joins the kill and contention scenarios when a server is named.
let postgres = !(ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] ?? "").isEmpty
let tiers = ["defaults", "secrets", "records", "files"] + (postgres ? ["postgres"] : [])
var rows: [Tally] = []
var generator = Seeded(seed)
let started = Date()

say(
    "strata-torture: seed \(seed), \(kills) kills per tier, 4 × \(contention) contention, \(hostileCount) hostile files per format\(quick ? " (quick)" : "")"
)

// Kill.
for tier in tiers {
    var tally = Tally(scenario: "kill", tier: tier)
    let root = try temporaryRoot("kill-\(tier)")
    defer { cleanUp(tier: tier, root: root) }
    var next = 0
    var acknowledged: [Int] = []
    for _ in 0..<kills {
        let child = try ChildProcess(me, ["child-write", tier, root, "\(next)"])
        do {
            try child.waitForLine(timeout: 60) { $0.hasPrefix("ack ") }
        } catch {
            tally.notes.append("the writer did not start: \(error)")
            child.kill()
            _ = child.wait()
            tally.unopenable += 1
            continue
        }
        usleep(UInt32.random(in: 0...15_000, using: &generator))
        child.kill(SIGKILL)
        let result = child.wait()
        if !(result.wasSignalled && result.status == SIGKILL) { tally.crashes += 1 }
        let acks = child.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
        acknowledged += acks
        tally.rounds += 1
        tally.faults += 1
        checkAcknowledged(tier: tier, root: root, acks: tier == "files" ? acks : acknowledged, tally: &tally)
        next = (acks.max() ?? next) + 2
    }
    rows.append(tally)
    say("  kill \(tier): \(tally.rounds) kills, \(tally.checked) acknowledged writes checked, \(tally.lost) lost")
}

// Contention.
for tier in tiers {
    var tally = Tally(scenario: "contention", tier: tier)
    let root = try temporaryRoot("contend-\(tier)")
    defer { cleanUp(tier: tier, root: root) }
    _ = try? readCounter(tier: tier, root: root)  // Creates the store before the children race.
    let children = try (0..<4).map { _ in try ChildProcess(me, ["child-contend", tier, root, "\(contention)"]) }
    for child in children {
        let result = child.wait()
        if result.status != 0 {
            tally.crashes += result.wasSignalled ? 1 : 0
            tally.untyped += result.wasSignalled ? 0 : 1
            tally.notes.append(result.standardError)
        }
    }
    tally.rounds = 4 * contention
    tally.checked = 1
    let final = (try? readCounter(tier: tier, root: root)) ?? -1
    if final != 4 * contention {
        tally.lost = 4 * contention - final
        tally.notes.append("ended at \(final), expected \(4 * contention)")
    }
    rows.append(tally)
    say("  contention \(tier): 4 × \(contention) → \(final)")
}

// Mixed writers: Storage, tiers' own APIs and the tool on the same keys.
do {
    var tally = Tally(scenario: "mixed", tier: "all")
    let operations = option("--mixed", quick ? 40 : 400)
    try mixedScenario(operations: operations, tally: &tally)
    rows.append(tally)
    say(
        "  mixed: 4 × \(operations) operations, \(tally.rounds) acknowledged, \(tally.faults) tier writes refused, "
            + "\(tally.lost) stale or lost")
}

// Faults.
for target in faultTargets {
    var tally = Tally(scenario: "faults", tier: target.tier)
    try faultScenario(target, tally: &tally)
    rows.append(tally)
    say("  faults \(target.tier): \(tally.rounds) injections")
}

// Hostile input.
for format in allHostileFormats {
    var tally = Tally(scenario: "hostile", tier: format.name)
    let result = try ChildProcess.run(me, ["child-hostile", format.name, "\(hostileCount)", "\(seed)"], timeout: 3600)
    tally.rounds = hostileCount
    if result.wasSignalled {
        tally.crashes += 1
        tally.notes.append("the reader crashed (signal \(result.status)): \(result.standardError.suffix(500))")
    } else if let line = result.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("hostile ") }) {
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        tally.checked = numbers[0] + numbers[1]
        tally.faults = numbers[0]  // Refused with a typed error.
        tally.untyped = numbers[2]
        if numbers[2] > 0 { tally.notes.append(result.standardError) }
    } else {
        tally.untyped += 1
        tally.notes.append(result.standardError)
    }
    rows.append(tally)
    say("  hostile \(format.name): \(tally.faults) refused, \(tally.checked - tally.faults) read correctly")
}

say("")
say(Tally.table(rows))
say("")
say(
    String(
        format: "finished in %.1f s; for hostile rows, 'faults' counts damaged files refused with a typed error",
        Date().timeIntervalSince(started)))
let problems = rows.filter { !$0.isClean }
for row in problems { say("PROBLEM \(row.scenario) \(row.tier): \(row.notes.prefix(3).joined(separator: " | "))") }
exit(problems.isEmpty ? 0 : 1)
