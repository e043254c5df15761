// StrataFiles against the tools a user would otherwise reach for, on the same files in the same run:
// store write/read vs `dd conv=fdatasync` / `cat`, gzip export vs `gzip -6`, zip export vs `zip -6 -r`, and the
// peak memory of a large export.
//
//   swift run -c release strata-bench-files [--quick]
import BenchmarkKit
import Foundation
import StrataCore
import StrataFiles

let quick = CommandLine.arguments.contains("--quick")

/// Peak-memory child: `peak ROOT KEY OUT` exports and prints VmHWM in KiB.
if CommandLine.arguments.count >= 5, CommandLine.arguments[1] == "peak" {
    let store = try FileStore(
        root: CommandLine.arguments[2], configuration: FilesConfiguration(durability: .atomicOnly))
    try store.exportGzip(CommandLine.arguments[3], to: CommandLine.arguments[4])
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    print(line.split(separator: " ").dropFirst().first ?? "0")
    exit(0)
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

let folder = try Bench.temporaryFolder("files")
defer { try? FileManager.default.removeItem(atPath: folder) }
let root = folder + "/store"
let store = try FileStore(root: root)
let megabytes = quick ? 64 : 256
let bigSource = folder + "/source.pdf"
try writePDFLike(bigSource, bytes: megabytes << 20)
print(
    "StrataFiles vs standard tools, \(megabytes) MiB PDF-like file, \(ProcessInfo.processInfo.activeProcessorCount) cores\(quick ? " (quick)" : "")"
)
print("")

// 1. Durable write and read of the big file.
try Bench.shell("sync")
let ddTime = try Bench.time {
    try Bench.shell("dd if='\(bigSource)' of='\(folder)/dd.out' bs=1M conv=fdatasync status=none")
}
let writeTime = try Bench.time { try store.write(to: "big/report.pdf", from: FileHandle(forReadingAtPath: bigSource)!) }
let catTime = try Bench.time { try Bench.shell("cat '\(folder)/dd.out' > /dev/null") }
var readBytes = 0
let readTime = try Bench.time { readBytes = try store.read("big/report.pdf") { _ in } }
precondition(readBytes == megabytes << 20)

// 2. gzip export vs gzip -6.
let gzipTime = try Bench.time { try Bench.shell("gzip -6 -c '\(bigSource)' > '\(folder)/tool.gz'") }
let ourGzipTime = try Bench.time { try store.exportGzip("big/report.pdf", to: folder + "/ours.gz") }
let gzipOK = try Bench.shell("gzip -t '\(folder)/ours.gz' && echo ok").contains("ok")

// 3. zip of a folder of PDFs and WAVs vs zip -6 -r.
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
let zipToolTime = try Bench.time { try Bench.shell("cd '\(folder)' && zip -6 -r -q tool.zip media") }
let ourZipTime = try Bench.time { try store.exportZip(["media"], to: folder + "/ours.zip") }
let zipOK = try Bench.shell("unzip -tq '\(folder)/ours.zip'").contains("No errors")
let zipInput = try store.list(prefix: "media").reduce(0) { $0 + (try store.metadata($1)?.size ?? 0) }

var rows = [
    Comparison(
        "durable write \(megabytes) MiB (vs dd fdatasync)", operations: 1, strata: writeTime, baseline: ddTime,
        target: 0.9),
    Comparison("read \(megabytes) MiB (vs cat)", operations: 1, strata: readTime, baseline: catTime, target: 0.9),
    Comparison("gzip export (vs gzip -6)", operations: 1, strata: ourGzipTime, baseline: gzipTime, target: 1.6),
    Comparison("zip export (vs zip -6 -r)", operations: 1, strata: ourZipTime, baseline: zipToolTime, target: 2.0),
]
Comparison.printTable(rows, baselineName: "tool", ratioName: "speedup")
rows.removeAll()
print("")
print(
    String(
        format: "gzip: %.1f MB/s vs %.1f MB/s; size %d vs %d (%.4fx); gzip -t %@",
        Double(megabytes << 20) / ourGzipTime / 1e6, Double(megabytes << 20) / gzipTime / 1e6,
        size(folder + "/ours.gz"),
        size(folder + "/tool.gz"), Double(size(folder + "/ours.gz")) / Double(size(folder + "/tool.gz")),
        gzipOK ? "ok" : "FAILED"))
print(
    String(
        format: "zip: %d MiB in; size %d vs %d (%.4fx); unzip -t %@", zipInput >> 20, size(folder + "/ours.zip"),
        size(folder + "/tool.zip"), Double(size(folder + "/ours.zip")) / Double(size(folder + "/tool.zip")),
        zipOK ? "ok" : "FAILED"))

// 4. Peak memory of a large export, in a fresh process.
let peakSize = quick ? 256 : 1024
let peakSource = folder + "/peak.pdf"
try writePDFLike(peakSource, bytes: peakSize << 20)
try store.write(to: "peak.pdf", from: FileHandle(forReadingAtPath: peakSource)!)
try? FileManager.default.removeItem(atPath: peakSource)
let peak = try Bench.shell("'\(CommandLine.arguments[0])' peak '\(root)' peak.pdf '\(folder)/peak.gz'")
let peakKiB = Int(peak.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
print(
    String(format: "peak memory of a %d MiB gzip export: %.1f MiB (target <= 64 MiB)", peakSize, Double(peakKiB) / 1024)
)
