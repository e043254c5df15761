// The Storage facade against each tier's own backend, same keys, same run: what reading through the catalog
// costs. Then the catalog's open time and memory at 10k, 100k and 1M keys.
//
//   swift run -c release strata-bench-storage            # the full run (the 1M catalog takes a minute to build)
//   swift run -c release strata-bench-storage --quick    # fewer keys, no 1M catalog
//   strata-bench-storage --profile read|put TIER [--direct] [--count N]   # one operation per key, for callgrind
//   strata-bench-storage --shared [--quick]   # a store whose catalog is on PostgreSQL (SharedStore.swift)
import BenchmarkKit
import Foundation
import Strata
import StrataCatalog

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")

// Child: `open ROOT` opens the catalog under ROOT, prints seconds, keys and peak resident memory (KiB).
if arguments.count >= 3, arguments[1] == "open" {
    var opened: StorageCatalog?
    let seconds = try Bench.time { opened = try StorageCatalog(root: arguments[2]) }
    let catalog = opened!
    print("\(seconds) \(try catalog.count) \(Bench.peakResident)")
    exit(0)
}

/// Writes a catalog of `count` record-tier keys under `root`, in batched appends.
func buildCatalog(at root: String, count: Int) throws {
    let catalog = try StorageCatalog(root: root)
    let location = StorageLocation(
        key: "", tier: .records, backend: "sqlite", ruleID: "structured-to-records-coredata", kind: .structured,
        contentType: nil, size: 127, modified: Date())
    let entry = try catalog.entry(for: location)
    var batch: [CatalogRecord] = []
    for index in 0..<count {
        batch.append(.set(key: "records/person-\(index)", entry: entry))
        if batch.count == 10_000 {
            try catalog.append(batch, durable: false)
            batch.removeAll(keepingCapacity: true)
        }
    }
    if !batch.isEmpty { try catalog.append(batch, durable: false) }
}

// Child: `build ROOT N` writes a catalog of N keys (for profiling the open by hand).
if arguments.count >= 4, arguments[1] == "build" {
    try buildCatalog(at: arguments[2], count: Int(arguments[3]) ?? 1000)
    exit(0)
}

/// Runs `body` once per key: the function a profiler collects (`valgrind --tool=callgrind
/// --toggle-collect='*profiledOperations*'`), so its instruction count divided by the keys is the cost of one
/// operation.
@inline(never)
func profiledOperations(_ keys: [String], _ body: (String) throws -> Void) throws {
    for key in keys { try body(key) }
}

/// What each tier is told about the benchmark's values (the selector sends each to its tier).
func benchDescriptor(for tier: Tier) -> DataDescriptor {
    switch tier {
    case .defaults: DataDescriptor(kind: .preference, estimatedSize: 32)
    case .secrets: DataDescriptor(kind: .credential, estimatedSize: 32)
    case .records: DataDescriptor(kind: .structured, estimatedSize: 32, isQueried: true)
    case .files: DataDescriptor(kind: .file, estimatedSize: 4096, contentType: "application/pdf")
    }
}

/// `--profile read|put TIER [--direct] [--count N]`: puts N values (default 1000) in TIER through the facade, flushes
/// the tier, does the operation once per key untimed, then once more per key inside ``profiledOperations(_:_:)``,
/// through the facade or (`--direct`) the tier's own backend. A put writes a new value of the same size, so the key
/// stays in its tier (what the benchmark's "put" rows time).
func profile(_ operation: String, tierName: String) throws {
    guard let tier = Tier(rawValue: tierName), ["read", "put"].contains(operation) else {
        fatalError("--profile read|put defaults|secrets|records|files [--direct] [--count N]")
    }
    setenv("STRATA_BENCH_SECRETS_KEY", String(repeating: "3c", count: 32), 1)
    let root = try Bench.temporaryFolder("storage-profile")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let storage = try Storage(root: root, secretsKey: .environment("STRATA_BENCH_SECRETS_KEY"))
    let count = arguments.firstIndex(of: "--count").flatMap { Int(arguments[$0 + 1]) } ?? 1000
    let direct = arguments.contains("--direct")
    let descriptor = benchDescriptor(for: tier)
    let keys = (0..<count).map { "bench-\(tier.rawValue)/item-\($0)" }
    let value = Data(repeating: 0x42, count: descriptor.estimatedSize)
    for key in keys { try storage.put(value, for: key, as: descriptor) }
    let backend = try storage.backend(for: tier)
    try backend.flush()
    let newValue = Data(repeating: 0x43, count: descriptor.estimatedSize)
    let body: (String) throws -> Void =
        switch (operation, direct) {
        case ("read", true): { _ = try backend.data(for: $0) }
        case ("read", false): { _ = try storage.data(for: $0) }
        case (_, true): { try backend.put(newValue, for: $0) }
        default: { try storage.put(newValue, for: $0, as: descriptor) }
        }
    for key in keys { try body(key) }
    try profiledOperations(keys, body)
    try backend.flush()
}

if let flag = arguments.firstIndex(of: "--profile"), flag + 2 < arguments.count {
    try profile(arguments[flag + 1], tierName: arguments[flag + 2])
    exit(0)
}

if arguments.contains("--shared") {
    try runShared(quick: quick)
    exit(0)
}

// Child: `split ROOT` breaks a facade read of the records tier into its steps (catalog lookup, backend lookup,
// the tier's read), per operation, to see where the facade's time goes.
if arguments.count >= 3, arguments[1] == "split" {
    let storage = try Storage(root: arguments[2])
    let keys = (0..<500).map { "split/item-\($0)" }
    let descriptor = DataDescriptor(kind: .structured, estimatedSize: 32, isQueried: true)
    for key in keys { try storage.put(Data(repeating: 0x42, count: 32), for: key, as: descriptor) }
    let backend = try storage.backend(for: .records)
    let steps: [(String, () throws -> Void)] = [
        ("catalog.tier(of:)", { for key in keys { _ = try storage.catalog.tier(of: key) } }),
        ("catalog.changeCount", { for _ in keys { _ = storage.catalog.changeCount } }),
        ("registry.backend(for:)", { for _ in keys { _ = try storage.backend(for: .records) } }),
        ("backend.data(for:)", { for key in keys { _ = try backend.data(for: key) } }),
        ("storage.data(for:)", { for key in keys { _ = try storage.data(for: key) } }),
    ]
    let value = Data(repeating: 0x43, count: 32)
    if arguments.count >= 4, arguments[3] == "puts" {
        // `split ROOT puts`: only facade puts that stay in their tier, for tracing their system calls.
        for key in keys { try storage.put(value, for: key, as: descriptor) }
        exit(0)
    }
    if arguments.count >= 4, arguments[3] == "direct-puts" {
        for key in keys { try backend.put(value, for: key) }
        exit(0)
    }
    for (name, body) in steps {
        let seconds = try Bench.best(of: 20, body)
        print(name.padding(toLength: 26, withPad: " ", startingAt: 0) + String(format: "%.3f µs", seconds / 500 * 1e6))
    }
    exit(0)
}

/// Facade against tier, then catalog open times.
func run() throws {
    setenv("STRATA_BENCH_SECRETS_KEY", String(repeating: "3c", count: 32), 1)
    let root = try Bench.temporaryFolder("storage")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let storage = try Storage(root: root, secretsKey: .environment("STRATA_BENCH_SECRETS_KEY"))

    let cases: [(tier: Tier, keys: Int, target: Double)] = [
        (.defaults, quick ? 200 : 1000, 1 / 1.5), (.secrets, quick ? 50 : 200, 1 / 1.1),
        (.records, quick ? 200 : 1000, 1 / 1.1), (.files, quick ? 50 : 200, 1 / 1.1),
    ]

    var rows: [Comparison] = []
    for (tier, keyCount, target) in cases {
        let descriptor = benchDescriptor(for: tier)
        let keys = (0..<keyCount).map { "bench-\(tier.rawValue)/item-\($0)" }
        let value = Data(repeating: 0x42, count: descriptor.estimatedSize)
        for key in keys { try storage.put(value, for: key, as: descriptor) }
        let backend = try storage.backend(for: tier)
        try backend.flush()
        let passes = quick ? 3 : 10
        // Interleaved: the tier's own read, then the facade's, best of several passes each.
        var direct = Double.infinity
        var facade = Double.infinity
        for _ in 0..<passes {
            direct = min(direct, try Bench.time { for key in keys { _ = try backend.data(for: key) } })
            facade = min(facade, try Bench.time { for key in keys { _ = try storage.data(for: key) } })
        }
        rows.append(
            Comparison("read \(tier.rawValue)", operations: keyCount, strata: facade, baseline: direct, target: target))
        // A put that stays in its tier: the catalog records the new size without an fsync.
        var directPut = Double.infinity
        var facadePut = Double.infinity
        for _ in 0..<(quick ? 1 : 3) {
            directPut = min(directPut, try Bench.time { for key in keys { try backend.put(value, for: key) } })
            facadePut = min(
                facadePut, try Bench.time { for key in keys { try storage.put(value, for: key, as: descriptor) } })
        }
        rows.append(Comparison("put \(tier.rawValue)", operations: keyCount, strata: facadePut, baseline: directPut))
    }
    print("Storage facade (through the catalog) against the tier's own backend; ratio = tier time / facade time")
    Comparison.printTable(rows, baselineName: "tier", ratioName: "ratio")

    // Catalog open: build catalogs of N keys directly (batched appends), then open each in a fresh process.
    print("")
    print("catalog open (a fresh process opens <root>/catalog and reads every entry)")
    print("keys       log size   open       peak memory")
    for count in quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000] {
        let folder = try Bench.temporaryFolder("catalog-\(count)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try buildCatalog(at: folder, count: count)
        let size = (try FileManager.default.attributesOfItem(atPath: folder + "/catalog/log")[.size] as? Int) ?? 0
        let output = try Bench.shell("'\(CommandLine.arguments[0])' open '\(folder)'").split(separator: " ")
        let seconds = Double(output[0]) ?? .nan
        let memory = (Double(output[2].trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan) / 1024
        let columns = ["\(count)", "\(size / 1024) KiB", String(format: "%.3f s", seconds)]
        print(columns.map { $0.padding(toLength: 11, withPad: " ", startingAt: 0) }.joined() + "\(Int(memory)) MiB")
    }
}

try run()
