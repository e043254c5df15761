// The Storage facade against each tier's own backend, same keys, same run: what reading through the catalog
// costs. Then the catalog's open time and memory at 10k, 100k and 1M keys.
//
//   swift run -c release strata-bench-storage            # the full run (the 1M catalog takes a minute to build)
//   swift run -c release strata-bench-storage --quick    # fewer keys, no 1M catalog
//   strata-bench-storage profile ROOT records facade 200  # one read per key, for callgrind (see profiledReads)
import BenchmarkKit
import Foundation
import Strata

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

// Child: `split ROOT` breaks a facade read of the records tier into its steps (catalog lookup, backend lookup,
// the tier's read), per operation, to see where the facade's time goes.
/// Reads every key once through `read`: the function a profiler collects (`valgrind --tool=callgrind
/// --toggle-collect='*profiledReads*'`), so its instruction count divided by the keys is the cost of one read.
@inline(never)
func profiledReads(_ keys: [String], _ read: (String) throws -> Data?) throws {
    for key in keys { _ = try read(key) }
}

/// Child: `profile ROOT TIER facade|tier [N]` puts N values (default 200) in TIER through the facade, reads them
/// once untimed, then once more inside `profiledReads`, through the facade or the tier's own backend.
func profileChild() throws {
    setenv("STRATA_BENCH_SECRETS_KEY", String(repeating: "3c", count: 32), 1)
    let storage = try Storage(root: arguments[2], secretsKey: .environment("STRATA_BENCH_SECRETS_KEY"))
    guard let tier = Tier(rawValue: arguments[3]) else { throw StorageError(.invalidArgument, "no such tier") }
    let count = arguments.count >= 6 ? Int(arguments[5]) ?? 200 : 200
    let descriptor: DataDescriptor =
        switch tier {
        case .defaults: DataDescriptor(kind: .preference, estimatedSize: 32)
        case .secrets: DataDescriptor(kind: .credential, estimatedSize: 32)
        case .records: DataDescriptor(kind: .structured, estimatedSize: 32, isQueried: true)
        case .files: DataDescriptor(kind: .file, estimatedSize: 4096, contentType: "application/pdf")
        }
    let keys = (0..<count).map { "bench-\(tier.rawValue)/item-\($0)" }
    let value = Data(repeating: 0x42, count: descriptor.estimatedSize)
    for key in keys { try storage.put(value, for: key, as: descriptor) }
    let backend = try storage.backend(for: tier)
    try backend.flush()
    let read: (String) throws -> Data? =
        arguments[4] == "tier" ? { try backend.data(for: $0) } : { try storage.data(for: $0) }
    for key in keys { _ = try read(key) }
    try profiledReads(keys, read)
}

if arguments.count >= 5, arguments[1] == "profile" {
    try profileChild()
    exit(0)
}

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

    let cases: [(tier: Tier, keys: Int, descriptor: DataDescriptor, target: Double)] = [
        (.defaults, quick ? 200 : 1000, DataDescriptor(kind: .preference, estimatedSize: 32), 1 / 1.5),
        (.secrets, quick ? 50 : 200, DataDescriptor(kind: .credential, estimatedSize: 32), 1 / 1.1),
        (.records, quick ? 200 : 1000, DataDescriptor(kind: .structured, estimatedSize: 32, isQueried: true), 1 / 1.1),
        (
            .files, quick ? 50 : 200, DataDescriptor(kind: .file, estimatedSize: 4096, contentType: "application/pdf"),
            1 / 1.1
        ),
    ]

    var rows: [Comparison] = []
    for (tier, keyCount, descriptor, target) in cases {
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
