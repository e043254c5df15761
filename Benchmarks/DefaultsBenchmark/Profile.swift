// `--profile get|set|durable [--count N]`: one Strata operation N times (100,000 gets or sets, 200 durable sets
// unless given) on the benchmark's 1000-key suite, and nothing else inside `profiledDefaults`, so an instruction
// counter can count it alone and a system-call count can be taken per operation (a run with `--count 0` counts
// everything around it):
//
//   valgrind --tool=callgrind --toggle-collect='*profiledDefaults*' \
//       .build/release/strata-bench-defaults --profile get --count 100000
//   strace -f -c .build/release/strata-bench-defaults --profile durable --count 200
//
// `get` reads existing keys in the benchmark's scattered order, `set` sets them in memory (coalesced), `durable`
// sets one of ten keys with `.durable`, as the benchmark's durable single set does.
import BenchmarkKit
import Foundation
import StrataCore
import StrataDefaults

/// What `--profile` measures: the arguments read.
struct ProfileRun {
    let operation: String
    let count: Int

    init?(_ arguments: [String]) {
        guard let index = arguments.firstIndex(of: "--profile"), index + 1 < arguments.count else { return nil }
        operation = arguments[index + 1]
        let counted = arguments.firstIndex(of: "--count").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        count = counted.flatMap(Int.init) ?? (operation == "durable" ? 200 : 100_000)
    }

    func run(keyCount: Int) throws {
        let root = try Bench.temporaryFolder("defaults-profile")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let filled = try DefaultsStore(
            suite: "bench", root: root,
            configuration: DefaultsConfiguration(durability: .coalesced(.seconds(3600)), watchesExternalChanges: false))
        for index in 0..<keyCount { try filled.set(value(index), forKey: key(index)) }
        try filled.flush()
        let names = (0..<keyCount).map { key(($0 * 7919) % keyCount) }
        var sink = 0
        let cpu = Bench.cpuSeconds
        let elapsed: Double
        switch operation {
        case "get":
            elapsed = Bench.time {
                profiledDefaults {
                    for index in 0..<count where filled.object(forKey: names[index % keyCount]) != nil { sink &+= 1 }
                }
            }
        case "set":
            elapsed = try Bench.time {
                try profiledDefaults {
                    for index in 0..<count { try filled.set(.integer(Int64(index)), forKey: names[index % keyCount]) }
                }
            }
        case "durable":
            let durable = try DefaultsStore(
                suite: "bench", root: root,
                configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
            elapsed = try Bench.time {
                try profiledDefaults {
                    for index in 0..<count { try durable.set(.integer(Int64(index)), forKey: "durable.\(index % 10)") }
                }
            }
        default:
            print("unknown operation \(operation): get, set or durable")
            return
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: filled.path)[.size] as? Int) ?? 0
        print(
            "\(operation) x\(count): \(Bench.perOperation(elapsed, max(count, 1))) each, cpu "
                + String(format: "%.3f s", Bench.cpuSeconds - cpu) + "; suite file \(size) bytes; sink \(sink % 2)")
    }
}

/// The counted frame of ``ProfileRun``, named to be found in a profile.
@inline(never)
func profiledDefaults(_ body: () throws -> Void) rethrows {
    try body()
}
