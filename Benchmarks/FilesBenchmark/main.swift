// StrataFiles against the tools a user would otherwise reach for, on the same files in the same run:
// store write/read vs `dd conv=fdatasync` / `cat`, gzip export vs `gzip -6` and `pigz -6`, zip export vs
// `zip -6 -r`, and the peak memory of a large export.
//
// Every figure is the median of paired rounds (default 5) in which the tool and Strata run back to back, the one
// that goes first alternating; the range of the per-round ratios is printed under the table. Both sides of a pair
// start from the same page-cache state: a write's source is cached, and the earlier output is replaced (`dd`
// truncates it, Strata renames over it); a cached read follows one untimed read of the file, a cold read follows
// dropping the file from the cache (`posix_fadvise(DONTNEED)` through `dd iflag=nocache`).
//
//   swift build -c release --product strata-bench-files && .build/release/strata-bench-files [--quick] [--rounds N]
import BenchmarkKit
import Foundation
import StrataCore
import StrataFiles
import StrataLocalFiles

/// Peak-memory child: `peak ROOT KEY OUT` exports and prints VmHWM in KiB.
func peakChild() throws {
    let store = try FileStore(
        root: CommandLine.arguments[2], configuration: FilesConfiguration(durability: .atomicOnly))
    try store.exportGzip(CommandLine.arguments[3], to: CommandLine.arguments[4])
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    print(line.split(separator: " ").dropFirst().first ?? "0")
}

func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

/// PDF-like content: text streams (compressible) with some binary (image) runs, as real reports have.
func writePDFLike(_ path: String, bytes: Int) throws {
    let words = [
        "BT", "/F1", "12", "Tf", "72", "712", "Td", "(Quarterly", "report)", "Tj", "ET", "q", "0.5", "0", "0",
        "rg", "re", "f", "Q", "stream", "endstream", "obj", "endobj", "storage", "strata", "revenue", "2026",
    ]
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = FileHandle(forWritingAtPath: path)!
    var state: UInt64 = 11
    var written = 0
    var chunk = [UInt8]()
    chunk.reserveCapacity(1 << 20)
    while written < bytes {
        chunk.removeAll(keepingCapacity: true)
        while chunk.count < (1 << 20) - 64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if state >> 60 == 0 {
                for _ in 0..<48 {  // A short binary run.
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    chunk.append(UInt8(truncatingIfNeeded: state >> 33))
                }
            } else {
                chunk += Array(words[Int(state >> 40) % words.count].utf8)
                chunk.append(state >> 58 == 1 ? 0x0A : 0x20)
            }
        }
        let take = min(chunk.count, bytes - written)
        handle.write(Data(chunk[0..<take]))
        written += take
    }
    try handle.close()
}

/// Paired rounds of one comparison: per-round times of both sides, run back to back in alternating order.
struct Rounds {
    var name: String
    var target: Double
    var strata: [Double] = []
    var baseline: [Double] = []

    /// Runs `count` rounds; `prepare` runs untimed before each side (cache state, removing old output).
    mutating func run(
        _ count: Int, prepare: () throws -> Void = {}, baseline runBaseline: () throws -> Void,
        strata runStrata: () throws -> Void
    ) throws {
        for round in 0..<count {
            for side in round % 2 == 0 ? [0, 1] : [1, 0] {
                try prepare()
                if side == 0 {
                    baseline.append(try Bench.time(runBaseline))
                } else {
                    strata.append(try Bench.time(runStrata))
                }
            }
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The row of medians.
    var comparison: Comparison {
        Comparison(name, operations: 1, strata: Self.median(strata), baseline: Self.median(baseline), target: target)
    }

    /// Per-round speedups (baseline / Strata of the same round): median, range, and how many rounds met the target.
    var summary: String {
        let ratios = zip(strata, baseline).map { $1 / $0 }
        let met = ratios.filter { $0 >= target }.count
        return String(
            format:
                "%@: median %.2fx, range %.2f–%.2fx over %d rounds (%d met >= %.2fx); Strata %.3f–%.3f s, tool %.3f–%.3f s",
            name, Self.median(ratios), ratios.min() ?? 0, ratios.max() ?? 0, ratios.count, met, target,
            strata.min() ?? 0, strata.max() ?? 0, baseline.min() ?? 0, baseline.max() ?? 0)
    }
}

func run() throws {
    let arguments = CommandLine.arguments
    if arguments.count >= 5, arguments[1] == "peak" { return try peakChild() }
    let quick = arguments.contains("--quick")
    let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 5
    let folder = try Bench.temporaryFolder("files")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let root = folder + "/store"
    let store = try FileStore(root: root)
    let megabytes = quick ? 64 : 256
    let bigSource = folder + "/source.pdf"
    try writePDFLike(bigSource, bytes: megabytes << 20)
    print(
        "StrataFiles vs standard tools, \(megabytes) MiB PDF-like file, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(rounds) paired rounds\(quick ? " (quick)" : "")"
    )
    print("")
    let bigKey = "big/report.pdf"
    let storedBig = try store.path(for: bigKey)
    let ddOut = folder + "/dd.out"

    // 1. Durable write of the big file from a cached source, replacing the previous output on both sides.
    try Bench.shell("cat '\(bigSource)' > /dev/null")
    try store.write(to: bigKey, from: FileHandle(forReadingAtPath: bigSource)!)
    try Bench.shell("dd if='\(bigSource)' of='\(ddOut)' bs=1M conv=fdatasync status=none")
    var write = Rounds(name: "durable write \(megabytes) MiB (vs dd conv=fdatasync)", target: 0.95)
    try write.run(
        rounds, prepare: { try Bench.shell("sync") },
        baseline: { try Bench.shell("dd if='\(bigSource)' of='\(ddOut)' bs=1M conv=fdatasync status=none") },
        strata: { try store.write(to: bigKey, from: FileHandle(forReadingAtPath: bigSource)!) })

    // 2. Reads of the same bytes: both files cached (after one untimed read), then both dropped from the cache.
    func strataRead() throws {
        let bytes = try store.read(bigKey, chunks: { _ in })
        precondition(bytes == megabytes << 20)
    }
    func catRead() throws { try Bench.shell("cat '\(ddOut)' > /dev/null") }
    var cached = Rounds(name: "read \(megabytes) MiB cached (vs cat)", target: 1.0)
    try catRead()
    try strataRead()
    try cached.run(rounds, baseline: { try catRead() }, strata: { try strataRead() })
    var cold = Rounds(name: "read \(megabytes) MiB cold (vs cat)", target: 1.0)
    try cold.run(
        rounds,
        prepare: {
            for file in [ddOut, storedBig] { try Bench.shell("dd if='\(file)' iflag=nocache count=0 status=none") }
        }, baseline: { try catRead() }, strata: { try strataRead() })

    // 3. gzip export vs gzip -6 and pigz -6 (on every core), same file.
    try Bench.shell("rm -f '\(ddOut)'")
    var gzip = Rounds(name: "gzip export (vs gzip -6)", target: 3.5)
    var pigz = Rounds(name: "gzip export (vs pigz -6)", target: 1.5)
    try gzip.run(
        rounds, baseline: { try Bench.shell("gzip -6 -c '\(bigSource)' > '\(folder)/tool.gz'") },
        strata: { try store.exportGzip(bigKey, to: folder + "/ours.gz") })
    try pigz.run(
        rounds, baseline: { try Bench.shell("pigz -6 -c '\(bigSource)' > '\(folder)/pigz.gz'") },
        strata: { try store.exportGzip(bigKey, to: folder + "/ours.gz") })
    let gzipOK = try Bench.shell("gzip -t '\(folder)/ours.gz' && echo ok").contains("ok")

    // 4. zip of a folder of PDFs and WAVs vs zip -6 -r.
    let zipFolder = folder + "/media"
    try FileManager.default.createDirectory(atPath: zipFolder + "/reports", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: zipFolder + "/recordings", withIntermediateDirectories: true)
    let reportCount = quick ? 8 : 24
    for index in 0..<reportCount {
        let path = zipFolder + "/reports/report-\(index).pdf"
        try writePDFLike(path, bytes: (index % 4 + 1) << 20)
        try store.write(to: "media/reports/report-\(index).pdf", from: FileHandle(forReadingAtPath: path)!)
    }
    for index in 0..<(reportCount / 2) {
        // WAV recordings: 16-bit PCM of a noisy tone (compresses a little, as real recordings do).
        var samples = Data("RIFF....WAVEfmt ".utf8)
        var state: UInt64 = UInt64(index + 1)
        for sample in 0..<(1 << 20) {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let value = Int16(sin(Double(sample) * 0.05) * 8000) &+ Int16(truncatingIfNeeded: Int(state >> 54) - 512)
            withUnsafeBytes(of: value.littleEndian) { samples.append(contentsOf: $0) }
        }
        let path = zipFolder + "/recordings/memo-\(index).wav"
        try samples.write(to: URL(fileURLWithPath: path))
        try store.write(samples, to: "media/recordings/memo-\(index).wav")
    }
    var zipRounds = Rounds(name: "zip export (vs zip -6 -r)", target: 3.0)
    try zipRounds.run(
        rounds, baseline: { try Bench.shell("cd '\(folder)' && rm -f tool.zip && zip -6 -r -q tool.zip media") },
        strata: { try store.exportZip(["media"], to: folder + "/ours.zip") })
    let zipOK = try Bench.shell("unzip -tq '\(folder)/ours.zip'").contains("No errors")
    let zipInput = try store.list(prefix: "media").reduce(0) { $0 + (try store.metadata($1)?.size ?? 0) }

    // Sizes as rows of their own (ratio = the tool's bytes / ours: at least 1/1.01 is within 1%).
    let ours = Double(size(folder + "/ours.gz"))
    let (gzipSize, pigzSize) = (Double(size(folder + "/tool.gz")), Double(size(folder + "/pigz.gz")))
    let (oursZip, toolZip) = (Double(size(folder + "/ours.zip")), Double(size(folder + "/tool.zip")))
    let sizes = [
        Comparison(
            "gzip export size (vs gzip -6)", operations: 1, strata: ours, baseline: gzipSize, target: 1 / 1.01,
            unit: .bytes),
        Comparison("gzip export size (vs pigz -6)", operations: 1, strata: ours, baseline: pigzSize, unit: .bytes),
        Comparison(
            "zip export size (vs zip -6 -r)", operations: 1, strata: oursZip, baseline: toolZip, target: 1 / 1.01,
            unit: .bytes),
    ]
    let all = [write, cached, cold, gzip, pigz, zipRounds]
    Comparison.printTable(all.map(\.comparison) + sizes, baselineName: "tool", ratioName: "speedup")
    print("")
    for rounds in all { print(rounds.summary) }
    print("")
    print(
        String(
            format:
                "gzip: %.1f MB/s vs gzip %.1f MB/s, pigz %.1f MB/s; size %.0f vs gzip %.0f (%.4fx), pigz %.0f (%.4fx); gzip -t %@",
            Double(megabytes << 20) / Rounds.median(gzip.strata) / 1e6,
            Double(megabytes << 20) / Rounds.median(gzip.baseline) / 1e6,
            Double(megabytes << 20) / Rounds.median(pigz.baseline) / 1e6, ours, gzipSize, ours / gzipSize, pigzSize,
            ours / pigzSize, gzipOK ? "ok" : "FAILED"))
    print(
        String(
            format: "zip: %d MiB in; size %.0f vs %.0f (%.4fx); unzip -t %@", zipInput >> 20, oursZip, toolZip,
            oursZip / toolZip, zipOK ? "ok" : "FAILED"))

    // 5. Peak memory of a large export, in a fresh process.
    let peakSize = quick ? 256 : 1024
    let peakSource = folder + "/peak.pdf"
    try writePDFLike(peakSource, bytes: peakSize << 20)
    try store.write(to: "peak.pdf", from: FileHandle(forReadingAtPath: peakSource)!)
    try? FileManager.default.removeItem(atPath: peakSource)
    let peak = try Bench.shell("'\(arguments[0])' peak '\(root)' peak.pdf '\(folder)/peak.gz'")
    let peakKiB = Int(peak.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    print(
        String(
            format: "peak memory of a %d MiB gzip export: %.1f MiB (target <= 64 MiB)", peakSize, Double(peakKiB) / 1024
        )
    )
}

try run()
