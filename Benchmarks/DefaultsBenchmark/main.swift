// StrataDefaults against Foundation's UserDefaults, same keys, same run. Prints per-operation times and ratios.
//
//   swift run -c release strata-bench-defaults            # the full run
//   swift run -c release strata-bench-defaults --quick    # fewer repetitions
//   swift run -c release strata-bench-defaults --profile get|set|durable [--count N]   # one operation alone (Profile.swift)
import BenchmarkKit
import Foundation
import StrataCore
import StrataDefaults

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
let keyCount = 1000

func key(_ index: Int) -> String { "preference.key.\(index)" }

/// The value of key `index`: a mix of types like a real suite.
func value(_ index: Int) -> PropertyListValue {
    switch index % 4 {
    case 0: .integer(Int64(index))
    case 1: .string("value number \(index)")
    case 2: .bool(index % 8 == 1)
    default: .real(Double(index) / 7)
    }
}

func foundationValue(_ index: Int) -> Any {
    switch index % 4 {
    case 0: index
    case 1: "value number \(index)"
    case 2: index % 8 == 1
    default: Double(index) / 7
    }
}

if let profile = ProfileRun(arguments) {
    try profile.run(keyCount: keyCount)
    exit(0)
}

// Cold-open children: `cold strata ROOT` / `cold foundation SUITE` open, read every key, print the seconds.
if arguments.count >= 4, arguments[1] == "cold" {
    let start = DispatchTime.now().uptimeNanoseconds
    var found = 0
    if arguments[2] == "strata" {
        let store = try DefaultsStore(
            suite: "bench", root: arguments[3], configuration: DefaultsConfiguration(watchesExternalChanges: false))
        for index in 0..<keyCount where store.object(forKey: key(index)) != nil { found += 1 }
    } else {
        let defaults = UserDefaults(suiteName: arguments[3])!
        for index in 0..<keyCount where defaults.object(forKey: key(index)) != nil { found += 1 }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(found == keyCount ? "\(seconds)" : "missing \(keyCount - found)")
    exit(0)
}

// Foundation keeps its suites in $HOME/.config and reads $HOME once, early: run the benchmark in a child whose
// HOME is a private temporary folder, so nothing of the user's is touched.
guard let home = ProcessInfo.processInfo.environment["STRATA_BENCH_HOME"] else {
    let home = try Bench.temporaryFolder("defaults-home")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = Array(CommandLine.arguments.dropFirst())
    process.environment = ProcessInfo.processInfo.environment.merging(
        ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "STRATA_BENCH_HOME": home]) { $1 }
    try process.run()
    process.waitUntilExit()
    exit(process.terminationStatus)
}
let root = try Bench.temporaryFolder("defaults")
defer {
    try? FileManager.default.removeItem(atPath: root)
}

print("StrataDefaults vs Foundation UserDefaults, \(keyCount)-key suite\(quick ? " (quick)" : "")")
var rows: [Comparison] = []

// 1. Fill both suites with the same keys.
let strata = try DefaultsStore(
    suite: "bench", root: root,
    configuration: DefaultsConfiguration(durability: .coalesced(.seconds(3600)), watchesExternalChanges: false))
let foundation = UserDefaults(suiteName: "bench")!
for index in 0..<keyCount {
    try strata.set(value(index), forKey: key(index))
    foundation.set(foundationValue(index), forKey: key(index))
}
try strata.flush()
foundation.synchronize()

// 2. Get of an existing key.
let gets = quick ? 50_000 : 200_000
// The app's key names, made once (as constants in an app are), read in a scattered order.
let names = (0..<keyCount).map { key(($0 * 7919) % keyCount) }
var sink = 0
let strataGet = Bench.best(of: 3) {
    for index in 0..<gets where strata.object(forKey: names[index % keyCount]) != nil { sink &+= 1 }
}
let foundationGet = Bench.best(of: 3) {
    for index in 0..<gets where foundation.object(forKey: names[index % keyCount]) != nil { sink &+= 1 }
}
rows.append(Comparison("get existing key", operations: gets, strata: strataGet, baseline: foundationGet, target: 20))

// 3. In-memory set (no flush).
let sets = quick ? 20_000 : 50_000
let strataSet = try Bench.best(of: 3) {
    for index in 0..<sets { try strata.set(.integer(Int64(index)), forKey: key(index % keyCount)) }
}
let foundationSet = Bench.best(of: 3) {
    for index in 0..<sets { foundation.set(index, forKey: key(index % keyCount)) }
}
rows.append(Comparison("set in memory", operations: sets, strata: strataSet, baseline: foundationSet, target: 20))

// 4. 1000 sets + one durable flush vs 1000 sets + one synchronize().
let burst = try Bench.best(of: quick ? 3 : 5) {
    for index in 0..<1000 { try strata.set(.integer(Int64(index * 3)), forKey: key(index)) }
    try strata.flush()
}
let foundationBurst = Bench.best(of: quick ? 3 : 5) {
    for index in 0..<1000 { foundation.set(index * 3, forKey: key(index)) }
    foundation.synchronize()
}
rows.append(Comparison("1000 sets + flush", operations: 1, strata: burst, baseline: foundationBurst))

// 5. Durable set one at a time: Strata `.durable` (temp + fsync + rename + fsync) vs set + synchronize().
let durable = try DefaultsStore(
    suite: "bench", root: root,
    configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
let singles = quick ? 50 : 200
let strataDurable = try Bench.best(of: 3) {
    for index in 0..<singles { try durable.set(.integer(Int64(index)), forKey: "durable.\(index % 10)") }
}
let foundationDurable = Bench.best(of: 3) {
    for index in 0..<singles {
        foundation.set(index, forKey: "durable.\(index % 10)")
        foundation.synchronize()
    }
}
rows.append(
    Comparison("durable single set", operations: singles, strata: strataDurable, baseline: foundationDurable, target: 5)
)

// 6. Cold open + read of every key in a new process (timed inside the child).
func cold(_ which: String, _ where_: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["cold", which, where_]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "cold \(which): \(text)"])
    }
    return seconds
}
try strata.flush()
foundation.synchronize()
var coldStrata = Double.infinity
var coldFoundation = Double.infinity
for _ in 0..<(quick ? 3 : 7) {
    coldStrata = min(coldStrata, try cold("strata", root))
    coldFoundation = min(coldFoundation, try cold("foundation", "bench"))
}
rows.append(Comparison("cold open + read 1000", operations: 1, strata: coldStrata, baseline: coldFoundation, target: 1))

print("")
Comparison.printTable(rows, baselineName: "UserDefaults")
let suiteBytes = (try? FileManager.default.attributesOfItem(atPath: strata.path)[.size] as? Int) ?? 0
print("")
print("suite file: \(suiteBytes) bytes (bplist00); sink \(sink % 2)")
