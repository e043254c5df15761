// The files tier on S3 beside Python's boto3 (the client most users would pick), against the same gateway in the
// same run: one large upload and download (boto3's managed transfer, upload_file / download_file with its
// defaults), many small objects up and down (boto3 in a plain loop, and with a ThreadPoolExecutor of 10 sharing one
// client, as its documentation suggests for threads; Strata in a loop and with 10 threads sharing one FileStore),
// and the peak resident memory of each side's large upload. A last step alternates a FileStore write and a bare
// signed PUT of the same body request by request, so that what the FileStore path adds to a PUT is measured with
// both meeting the gateway in the same state (the loops run minutes apart, and the gateway's latency drifts).
//
// Every step runs in a child process (Strata: this executable's `child` mode; boto3: boto3_side.py) that times the
// step alone and reports its peak RSS (VmHWM / ru_maxrss), so neither side pays for its start and each memory
// figure is that process's own. The two sides alternate within every round; the best time of each is kept.
//
// The gateway and credentials: STRATA_S3_URL (s3://bucket/prefix), AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, as `eval "$(Scripts/s3.sh start)"` exports them (Scripts/bench.sh s3 starts and stops a
// gateway itself). boto3 runs under STRATA_BENCH_PYTHON (bench.sh makes a virtualenv with boto3), else python3;
// without boto3 its rows are left out.
//
//   swift build -c release --product strata-bench-s3 && .build/release/strata-bench-s3 [--quick] [--rounds N]
import BenchmarkKit
import Foundation
import StrataCore
import StrataFiles
import StrataS3

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's peak resident memory in KiB.
func peakKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

/// The S3 configuration of the benchmark's location (`STRATA_S3_URL` and `AWS_*`), under `prefix`.
func configuration(prefix: String) throws -> S3Configuration {
    var configuration = try S3Configuration(url: ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "")
    configuration.prefix += prefix
    return configuration
}

/// The files tier on the benchmark's location under `prefix`, as users open it: a `FileStore` over the S3 engine.
func store(prefix: String) throws -> FileStore {
    FileStore(engine: try S3FileEngine(configuration: configuration(prefix: prefix)))
}

/// Runs `work(index)` for `count` indices, on `threads` threads sharing the work (1: a plain loop). Threads of
/// their own, as boto3's ThreadPoolExecutor has: `DispatchQueue.concurrentPerform` runs as many at once as there are
/// cores, and a thread waiting on the network keeps its place, so two cores ran two requests at a time.
func spread(_ count: Int, threads: Int, _ work: @escaping @Sendable (Int) throws -> Void) throws {
    guard threads > 1 else { return try (0..<count).forEach(work) }
    let failures = Failures()
    let done = DispatchGroup()
    for worker in 0..<threads {
        done.enter()
        Thread {
            for index in stride(from: worker, to: count, by: threads) {
                do { try work(index) } catch { failures.record(error) }
            }
            done.leave()
        }.start()
    }
    done.wait()
    if let error = failures.first { throw error }
}

/// The first error of several threads.
final class Failures: @unchecked Sendable {
    // `lock` guards `errors`.
    private let lock = NSLock()
    private var errors: [any Error] = []
    func record(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}

/// `child COMMAND …`: one measured Strata step; prints `seconds peakKiB cpuSeconds` (the CPU time the step
/// spent in this process: what the client costs, apart from waiting on the gateway).
func strataChild(_ arguments: [String]) throws {
    let command = arguments[2]
    let files = try store(prefix: arguments[3])
    var seconds = 0.0
    var cpuStart = 0.0
    /// Times `body`, and starts the CPU clock with it.
    func time(_ body: () throws -> Void) throws -> Double {
        cpuStart = Bench.cpuSeconds
        return try Bench.time(body)
    }
    switch command {
    case "upload":  // child upload PREFIX FILE KEY
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: arguments[4]))
        defer { try? handle.close() }
        seconds = try time { try files.write(to: arguments[5], from: handle) }
    case "download":  // child download PREFIX KEY FILE
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: arguments[5]))
        defer { try? output.close() }
        seconds = try time {
            _ = try files.forEachChunk(of: arguments[4]) { chunk in try output.write(contentsOf: chunk) }
        }
    case "put-many":  // child put-many PREFIX COUNT SIZE THREADS
        let (count, size, threads) = (Int(arguments[4])!, Int(arguments[5])!, Int(arguments[6])!)
        let bodies = randomBodies(count, size)
        seconds = try time {
            try spread(count, threads: threads) { index in try files.write(bodies[index], to: "\(index)") }
        }
    case "put-floor":  // child put-floor PREFIX COUNT SIZE: bare signed PUTs through the HTTP layer, no FileStore
        let (count, size) = (Int(arguments[4])!, Int(arguments[5])!)
        let client = try S3Client(configuration(prefix: arguments[3]))
        let bodies = randomBodies(count, size).map { [UInt8]($0) }
        seconds = try time { for index in 0..<count { try client.put("\(index)", bytes: bodies[index]) } }
    case "put-interleaved":  // child put-interleaved PREFIX COUNT SIZE: FileStore and bare PUTs, one after the other
        // Each FileStore write is followed by a bare signed PUT of the same body: both meet the gateway in the same
        // state, so the difference of their medians is what the FileStore path adds, whatever the load did.
        let (count, size) = (Int(arguments[4])!, Int(arguments[5])!)
        let client = try S3Client(configuration(prefix: arguments[3] + "bare/"))
        let bodies = randomBodies(count, size)
        let bytes = bodies.map { [UInt8]($0) }
        var (viaStore, bare) = ([Double](), [Double]())
        for index in 0..<count {
            viaStore.append(try Bench.time { try files.write(bodies[index], to: "\(index)") })
            bare.append(try Bench.time { try client.put("\(index)", bytes: bytes[index]) })
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print("interleaved", median(viaStore), median(bare))
        return
    case "get-many":  // child get-many PREFIX COUNT THREADS
        let (count, threads) = (Int(arguments[4])!, Int(arguments[5])!)
        seconds = try time {
            try spread(count, threads: threads) { index in
                guard try !files.read("\(index)").isEmpty else {
                    throw StorageError(.corrupt, "an object came back empty", key: "\(index)")
                }
            }
        }
    default: throw StorageError(.invalidArgument, "unknown child command \(command)")
    }
    print(seconds, peakKiB(), Bench.cpuSeconds - cpuStart)
}

/// `count` random bodies of `size` bytes.
func randomBodies(_ count: Int, _ size: Int) -> [Data] {
    (0..<count).map { _ in Data((0..<size).map { _ in UInt8.random(in: 0...255) }) }
}

/// A step's time, its process's peak memory and the CPU time it spent.
struct Step {
    var seconds: Double
    var peakKiB: Double
    var cpuSeconds: Double
}

/// Runs a child and reads its `seconds peakKiB cpuSeconds` line.
func step(_ command: String) throws -> Step {
    let output = try Bench.shell(command + " 2>&1")
    let last = output.split(separator: "\n").last ?? ""
    let fields = last.split(separator: " ").compactMap { Double($0) }
    guard fields.count == 3 else { throw StorageError(.io, "the benchmark child failed: \(output)") }
    return Step(seconds: fields[0], peakKiB: fields[1], cpuSeconds: fields[2])
}

/// The best (fastest) step of each side, each side's highest peak and least CPU time.
struct Best {
    var seconds = Double.infinity
    var peakKiB = 0.0
    var cpuSeconds = Double.infinity
    mutating func add(_ step: Step) {
        seconds = min(seconds, step.seconds)
        peakKiB = max(peakKiB, step.peakKiB)
        cpuSeconds = min(cpuSeconds, step.cpuSeconds)
    }
}

func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

func run() throws {
    let arguments = CommandLine.arguments
    if arguments.count > 2, arguments[1] == "child" { return try strataChild(arguments) }
    let environment = ProcessInfo.processInfo.environment
    guard let url = environment["STRATA_S3_URL"], !url.isEmpty else {
        throw StorageError(
            .invalidArgument, "no S3 gateway: STRATA_S3_URL is unset",
            recovery: "Run eval \"$(Scripts/s3.sh start)\" first, or Scripts/bench.sh s3")
    }
    let base = try S3Configuration(url: url)
    let quick = arguments.contains("--quick")
    let largeBytes = (quick ? 64 : 256) << 20
    let smallCount = quick ? 200 : 1_000
    let smallBytes = 16 << 10
    let threads = 10
    let work = try Bench.temporaryFolder("s3")
    defer { try? FileManager.default.removeItem(atPath: work) }
    let run = "bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/"
    let me = quoted(arguments[0])

    // boto3: under the virtualenv's Python when bench.sh made one.
    let python = environment["STRATA_BENCH_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("boto3_side.py")
    let boto3 = "\(quoted(python)) \(quoted(script.path))"
    let hasBoto3 =
        (try? Bench.shell("\(quoted(python)) -c 'import boto3; print(boto3.__version__)' 2>/dev/null"))
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    let bucket = quoted(base.bucket)
    let prefix = base.prefix + run
    // Whether the Strata side can run (the S3 files engine is built).
    let hasStrata = (try? store(prefix: run)) != nil

    let source = work + "/large"
    _ = try Bench.shell("head -c \(largeBytes) /dev/urandom > \(quoted(source))")
    print(
        "gateway \(base.endpoint.absoluteString), bucket \(base.bucket); \(largeBytes >> 20) MiB object, "
            + "\(smallCount) × \(smallBytes >> 10) KiB objects; boto3 \(hasBoto3.isEmpty ? "missing" : hasBoto3) "
            + "(\(python)); \(ProcessInfo.processInfo.activeProcessorCount) cores; load \(loadAverage())")

    var (botoUp, botoDown, strataUp, strataDown) = (Best(), Best(), Best(), Best())
    var small: [String: Best] = [:]
    /// Per round: the median FileStore PUT and the median bare PUT, alternated request by request.
    var interleaved: [(store: Double, bare: Double)] = []
    for round in 1...max(Bench.rounds, 1) {
        let copy = work + "/copy"
        if !hasBoto3.isEmpty {
            botoUp.add(try step("\(boto3) upload \(quoted(source)) \(bucket) \(quoted(prefix + "boto3/large"))"))
        }
        if hasStrata {
            strataUp.add(try step("\(me) child upload \(quoted(run + "strata/")) \(quoted(source)) large"))
        }
        if !hasBoto3.isEmpty {
            try? FileManager.default.removeItem(atPath: copy)
            botoDown.add(try step("\(boto3) download \(bucket) \(quoted(prefix + "boto3/large")) \(quoted(copy))"))
            try check(copy, equals: source)
        }
        if hasStrata {
            _ = FileManager.default.createFile(atPath: copy, contents: nil)
            strataDown.add(try step("\(me) child download \(quoted(run + "strata/")) large \(quoted(copy))"))
            try check(copy, equals: source)
        }
        for width in [1, threads] {
            let label = width == 1 ? "loop" : "\(width) threads"
            let botoPrefix = prefix + "boto3/small-\(width)/"
            let strataPrefix = run + "strata/small-\(width)/"
            if !hasBoto3.isEmpty {
                small["boto3 up \(label)", default: Best()].add(
                    try step("\(boto3) put-many \(bucket) \(quoted(botoPrefix)) \(smallCount) \(smallBytes) \(width)"))
            }
            if hasStrata {
                small["strata up \(label)", default: Best()].add(
                    try step("\(me) child put-many \(quoted(strataPrefix)) \(smallCount) \(smallBytes) \(width)"))
            }
            if !hasBoto3.isEmpty {
                small["boto3 down \(label)", default: Best()].add(
                    try step("\(boto3) get-many \(bucket) \(quoted(botoPrefix)) \(smallCount) \(width)"))
            }
            if hasStrata {
                small["strata down \(label)", default: Best()].add(
                    try step("\(me) child get-many \(quoted(strataPrefix)) \(smallCount) \(width)"))
            }
        }
        // The floor of a serial PUT loop: each client's barest signed PUT of the same bodies, no FileStore, no
        // metadata (boto3 without its default CRC-32 checksum header).
        if !hasBoto3.isEmpty {
            small["boto3 floor", default: Best()].add(
                try step("\(boto3) put-floor \(bucket) \(quoted(prefix + "boto3/floor/")) \(smallCount) \(smallBytes)"))
        }
        if hasStrata {
            small["strata floor", default: Best()].add(
                try step("\(me) child put-floor \(quoted(run + "strata/floor/")) \(smallCount) \(smallBytes)"))
        }
        if hasStrata {
            let line = try Bench.shell(
                "\(me) child put-interleaved \(quoted(run + "strata/interleaved/")) \(smallCount) \(smallBytes) 2>&1")
            let fields = (line.split(separator: "\n").last ?? "").split(separator: " ").compactMap { Double($0) }
            if fields.count == 2 { interleaved.append((fields[0], fields[1])) }
        }
        print("round \(round) done; load \(loadAverage())")
    }
    if !hasBoto3.isEmpty { _ = try? Bench.shell("\(boto3) delete-prefix \(bucket) \(quoted(prefix))") }

    let mebibytes = Double(largeBytes) / 1_048_576
    func show(_ name: String, _ best: Best, bytes: Double) {
        guard best.seconds.isFinite else { return }
        print(
            String(
                format: "%@: %.2f s, %.1f MiB/s, peak RSS %.1f MiB, CPU %.2f s", name, best.seconds,
                bytes / 1_048_576 / best.seconds, best.peakKiB / 1024, best.cpuSeconds))
    }
    show("boto3 upload_file", botoUp, bytes: Double(largeBytes))
    show("Strata upload", strataUp, bytes: Double(largeBytes))
    show("boto3 download_file", botoDown, bytes: Double(largeBytes))
    show("Strata download", strataDown, bytes: Double(largeBytes))
    for (name, best) in small.sorted(by: { $0.key < $1.key }) {
        show("\(smallCount) × 16 KiB, \(name)", best, bytes: Double(smallCount * smallBytes))
    }
    if strataUp.seconds.isFinite {
        print(
            String(
                format: "Strata's %.0f MiB upload: peak RSS %.1f MiB (target <= 64 MiB: %@)", mebibytes,
                strataUp.peakKiB / 1024, strataUp.peakKiB <= 64 * 1024 ? "met" : "NOT MET"))
    }
    guard hasStrata, !hasBoto3.isEmpty else {
        print("no ratios: \(hasStrata ? "boto3 is missing" : "the S3 files engine is not built") in this run")
        return
    }
    func row(_ name: String, _ strata: String, _ boto3: String, operations: Int, target: Double? = nil) -> Comparison? {
        guard let strata = small[strata], let baseline = small[boto3] else { return nil }
        return Comparison(
            name, operations: operations, strata: strata.seconds, baseline: baseline.seconds, target: target)
    }
    /// A row of the CPU time each client spent (not the wall time): what each costs beside the gateway's wait.
    func cpuRow(_ name: String, _ strata: String, _ boto3: String, operations: Int) -> Comparison? {
        guard let strata = small[strata], let baseline = small[boto3] else { return nil }
        return Comparison(name, operations: operations, strata: strata.cpuSeconds, baseline: baseline.cpuSeconds)
    }
    // A serial loop waits for each answer: its time per PUT is the client's CPU plus the gateway's latency, so
    // the gateway's share (wall minus CPU) bounds what any client can reach.
    for (side, key) in [
        ("Strata FileStore", "strata up loop"), ("Strata bare PUT", "strata floor"),
        ("boto3 put_object", "boto3 up loop"), ("boto3 bare put_object", "boto3 floor"),
    ] {
        guard let best = small[key] else { continue }
        let perPut = best.seconds / Double(smallCount) * 1000
        let cpu = best.cpuSeconds / Double(smallCount) * 1000
        print(
            String(
                format: "PUT loop, %@: %.2f ms per PUT, %.2f ms of it client CPU, %.2f ms waiting", side, perPut,
                cpu, perPut - cpu))
    }
    for (round, pair) in interleaved.enumerated() {
        print(
            String(
                format: "PUT loop, FileStore and bare PUT alternated (round %d): median %.2f vs %.2f ms per PUT: the "
                    + "FileStore path adds %.2f ms", round + 1, pair.store * 1000, pair.bare * 1000,
                (pair.store - pair.bare) * 1000))
    }
    let large = "\(Int(mebibytes)) MiB"
    var rows = [
        Comparison(
            "\(large) upload (upload_file)", operations: 1, strata: strataUp.seconds, baseline: botoUp.seconds,
            target: 1),
        Comparison(
            "\(large) download (download_file)", operations: 1, strata: strataDown.seconds, baseline: botoDown.seconds,
            target: 1),
        Comparison(
            "\(large) upload: peak RSS", operations: 1, strata: strataUp.peakKiB * 1024,
            baseline: botoUp.peakKiB * 1024,
            unit: .bytes),
    ]
    rows += [
        row("16 KiB puts, loop", "strata up loop", "boto3 up loop", operations: smallCount, target: 2),
        row("16 KiB gets, loop", "strata down loop", "boto3 down loop", operations: smallCount, target: 2),
        row(
            "16 KiB puts, 10 threads", "strata up 10 threads", "boto3 up 10 threads", operations: smallCount, target: 2),
        row(
            "16 KiB gets, 10 threads", "strata down 10 threads", "boto3 down 10 threads", operations: smallCount,
            target: 2),
        row(
            "16 KiB puts, 10 threads vs boto3 loop", "strata up 10 threads", "boto3 up loop", operations: smallCount,
            target: 2),
        row(
            "16 KiB gets, 10 threads vs boto3 loop", "strata down 10 threads", "boto3 down loop",
            operations: smallCount, target: 2),
        row(
            "16 KiB bare PUTs, loop (each client's floor)", "strata floor", "boto3 floor", operations: smallCount),
        row("16 KiB puts, loop: FileStore vs its bare PUT", "strata up loop", "strata floor", operations: smallCount),
        cpuRow("16 KiB puts, loop: client CPU", "strata up loop", "boto3 up loop", operations: smallCount),
        cpuRow("16 KiB bare PUTs, loop: client CPU", "strata floor", "boto3 floor", operations: smallCount),
    ].compactMap { $0 }
    Comparison.printTable(rows, baselineName: "boto3")
}

/// Refuses a transfer that did not bring back the bytes sent.
func check(_ copy: String, equals source: String) throws {
    guard (try? Bench.shell("cmp -s \(quoted(copy)) \(quoted(source)) && echo same"))?.hasPrefix("same") == true else {
        throw StorageError(.corrupt, "the downloaded copy differs from the uploaded file", path: copy)
    }
}

/// The one-minute load average, for the record: the figures are noisy on a busy machine.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").first.map(
        String.init)
        ?? "?"
}

do { try run() } catch {
    FileHandle.standardError.write(Data("strata-bench-s3: \(error)\n".utf8))
    exit(1)
}
