// The backup repository on a synthetic store tree (PDF-like text, WAV-like samples, many small files): the first
// backup, a second of the unchanged tree, and a third after 1% of it changed, each in its own process so its peak
// memory (VmHWM) is its own; beside `tar -c | gzip -6` of the same tree (the archive a user would otherwise make).
// restic and `tar -cz | age` are added by the CLI work of issue 19.
//
//   swift build -c release --product strata-bench-backup && .build/release/strata-bench-backup [--size-mib N]
import BenchmarkKit
import Foundation
import StrataBackup
import StrataCore

/// `backup REPO KEYFILE TREE [full]`: one backup; prints `seconds written files reused peakKiB`.
func backupChild(_ arguments: [String]) throws {
    let start = DispatchTime.now().uptimeNanoseconds
    let repository = try BackupRepository.open(at: arguments[2], key: .keyFile(arguments[3]))
    let writer = try repository.beginSnapshot(readsEverything: arguments.count > 5)
    let tree = arguments[4]
    for name in try FileManager.default.subpathsOfDirectory(atPath: tree).sorted() {
        let path = tree + "/" + name
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
        let handle = FileHandle(forReadingAtPath: path)!
        defer { try? handle.close() }
        let modified = (attributes[.modificationDate] as! Date).timeIntervalSince1970
        let file = CapturedFile(
            path: name, tier: .files, mode: 0o600, size: Int64(attributes[.size] as! Int),
            modificationTime: .init(
                seconds: Int64(modified.rounded(.down)),
                nanoseconds: Int32((modified - modified.rounded(.down)) * 1e9)))
        try writer.add(file, contentsOf: handle.fileDescriptor)
    }
    let summary = try writer.commit()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(seconds, summary.addedBytes, summary.fileCount, summary.reusedFiles, peakKiB())
}

/// This process's peak resident memory in KiB.
func peakKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

/// Deterministic bytes: `text` mixes words (compressible, as PDF content streams); otherwise a slow random walk
/// (16-bit samples, as WAV audio: it compresses a little).
func generate(_ path: String, bytes: Int, seed: UInt64, text: Bool) throws {
    let words = Array("BT /F1 12 Tf 72 712 Td (Quarterly report) Tj ET q 0.5 0 0 rg re f Q stream endstream ".utf8)
    var state = seed | 1
    var out = [UInt8]()
    out.reserveCapacity(bytes)
    var sample: Int32 = 0
    while out.count < bytes {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        if text {
            if state % 7 == 0 {
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: state >> shift)) }
            } else {
                let start = Int(state % UInt64(words.count - 24))
                out += words[start..<(start + 8 + Int(state >> 60))]
            }
        } else {
            sample = max(-32000, min(32000, sample + Int32(truncatingIfNeeded: state % 2001) - 1000))
            out.append(UInt8(truncatingIfNeeded: sample))
            out.append(UInt8(truncatingIfNeeded: sample >> 8))
        }
    }
    try Data(out.prefix(bytes)).write(to: URL(fileURLWithPath: path))
}

func folderSize(_ path: String) -> Int {
    let files = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
    return files.reduce(0) {
        $0 + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + $1)[.size] as? Int) ?? 0)
    }
}

func run() throws {
    let arguments = CommandLine.arguments
    if arguments.count > 1, arguments[1] == "backup" { return try backupChild(arguments) }
    let sizeMiB =
        arguments.firstIndex(of: "--size-mib").flatMap { arguments.count > $0 + 1 ? Int(arguments[$0 + 1]) : nil }
        ?? 1024
    let work = try Bench.temporaryFolder("backup")
    defer { try? FileManager.default.removeItem(atPath: work) }
    let tree = work + "/tree"
    for folder in ["records", "files/pdf", "files/wav", "defaults", "secrets"] {
        try FileManager.default.createDirectory(atPath: tree + "/" + folder, withIntermediateDirectories: true)
    }
    // 60% PDF-like in 4 MiB files, 35% WAV-like in 8 MiB files, the rest small files.
    let total = sizeMiB << 20
    var made = 0
    var index = 0
    while made < total * 60 / 100 {
        try generate(tree + "/files/pdf/\(index).pdf", bytes: 4 << 20, seed: UInt64(index + 1), text: true)
        made += 4 << 20
        index += 1
    }
    while made < total * 95 / 100 {
        try generate(tree + "/files/wav/\(index).wav", bytes: 8 << 20, seed: UInt64(index + 1), text: false)
        made += 8 << 20
        index += 1
    }
    var small = 0
    while made < total {
        try generate(tree + "/secrets/\(small).item", bytes: 2048, seed: UInt64(100_000 + small), text: small % 2 == 0)
        made += 2048
        small += 1
    }
    let treeBytes = folderSize(tree)
    print(
        "tree: \(treeBytes >> 20) MiB in \(index + small) files; \(ProcessInfo.processInfo.activeProcessorCount) cores")

    let repository = work + "/repo"
    let keyFile = work + "/key"
    try RepositoryKey.createKeyFile(at: keyFile)
    _ = try BackupRepository.create(at: repository, key: .keyFile(keyFile))
    let me = arguments[0]
    func backup(_ label: String, full: Bool = false) throws -> [Double] {
        let output = try Bench.shell("'\(me)' backup '\(repository)' '\(keyFile)' '\(tree)'" + (full ? " full" : ""))
        let fields = output.split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard fields.count == 5 else { throw StorageError(.io, "the backup child failed: \(output)") }
        print(
            String(
                format: "%@: %.2f s, %.1f MiB/s, %.1f MiB written, %d files (%d reused), peak %.1f MiB", label,
                fields[0], Double(treeBytes) / 1_048_576 / fields[0], fields[1] / 1_048_576, Int(fields[2]),
                Int(fields[3]), fields[4] / 1024))
        return fields
    }
    _ = try Bench.shell("sync")
    let first = try backup("first backup", full: true)
    let second = try backup("second backup (unchanged)")
    // Change 1%: rewrite that many bytes of PDF-like files (new content, new modification time).
    var changed = 0
    var file = 0
    while changed < treeBytes / 100 {
        try generate(tree + "/files/pdf/\(file).pdf", bytes: 4 << 20, seed: UInt64(9_000_000 + file), text: true)
        changed += 4 << 20
        file += 1
    }
    let third = try backup("third backup (1% changed)")
    let archive = work + "/tree.tar.gz"
    let tarSeconds = try Bench.time { try Bench.shell("tar -cf - -C '\(tree)' . | gzip -6 > '\(archive)'") }
    let archiveBytes = folderSize(work) - folderSize(tree) - folderSize(repository)
    let repositoryBytes = folderSize(repository)
    print(
        String(
            format: "tar | gzip -6: %.2f s, %.1f MiB; repository after three backups: %.1f MiB", tarSeconds,
            Double(archiveBytes) / 1_048_576, Double(repositoryBytes) / 1_048_576))
    print(
        String(
            format: "second/first: %.1f%% of the time, %.3f%% of the bytes; third wrote %.2f%% of the tree",
            100 * second[0] / first[0], 100 * second[1] / max(first[1], 1), 100 * third[1] / Double(treeBytes)))
    Comparison.printTable(
        [
            Comparison("first backup", operations: 1, strata: first[0], baseline: tarSeconds),
            Comparison("second backup (unchanged)", operations: 1, strata: second[0], baseline: tarSeconds),
            Comparison("third backup (1% changed)", operations: 1, strata: third[0], baseline: tarSeconds),
        ], baselineName: "tar|gzip -6")
}

do { try run() } catch {
    FileHandle.standardError.write(Data("strata-bench-backup: \(error)\n".utf8))
    exit(1)
}
