// Issue 19's measure: a real Strata store of ~1 GiB built through the `Storage` API (100,000 records in a
// collection, PDF and WAV files, a 1,000-key defaults suite, 1,000 secrets under a key file), backed up with
// `Storage.backup(to:)` three times (first, unchanged, after 1% changed) and restored with `Storage.restore`; beside
// restic doing the same steps on the same root (the store stopped, so restic sees its folder), and
// `tar -cz | age -r` of the root. Each timed step runs in its own process under `/usr/bin/time`, so its wall time
// and peak resident memory (wait4's maxrss) are its own, restic's included. restic, age and time are Debian
// packages (Scripts/bench.sh installs them); without restic or age their rows are left out.
//
//   swift build -c release --product strata-bench-backup
//   .build/release/strata-bench-backup [--size-mib N | --quick]     # N defaults to 1024; --quick: 128
//       [--restores N]          # restore N times (Strata, then restic, in turn); the table takes the medians
//       [--restore-with BINARY] # also restore with another build of this benchmark, in turn with this one
//       [--without-tar]         # leave `tar -cz | age` out (minutes on a busy machine; nothing else needs it)
//       [--backup-tiers]        # the first backup also prints, on standard error, its CPU time and each tier's share
//       [--keep-work]           # leave the store and the repositories in place, to profile one step again
//   (where the time goes inside a backup or a restore: `perf record -g` on the `backup` or `restore` subcommand, as
//   Documentation/Benchmarks.md shows)
import BenchmarkKit
import Foundation
import Strata

/// The store's secrets key file, beside the store (restic and tar see only the root).
func secretsKey(_ work: String) -> KeyProvider { .keyFile(work + "/secrets.key") }

/// `backup ROOT REPO REPOKEY SECRETSKEY [--backup-tiers]`: one backup of the store; prints `written files reused`.
func backupChild(_ arguments: [String]) throws {
    let storage = try Storage(root: arguments[2], secretsKey: .keyFile(arguments[5]))
    let repository = try BackupRepository.open(at: arguments[3], key: .keyFile(arguments[4]))
    let backup =
        arguments.contains("--backup-tiers")
        ? try BackupTierReport.backup(storage, to: repository) : try storage.backup(to: repository)
    print(backup.snapshot.addedBytes, backup.snapshot.fileCount, backup.snapshot.reusedFiles)
}

/// `restore REPO REPOKEY TARGET SECRETSKEY`: the latest snapshot restored into a new root (staged, every file
/// durable, the staged store verified and every catalogued key read back, then moved); prints `files keys`.
func restoreChild(_ arguments: [String]) throws {
    let repository = try BackupRepository.open(at: arguments[2], key: .keyFile(arguments[3]))
    guard let latest = try repository.snapshots().last else { throw StorageError(.notFound, "no snapshot") }
    let report = try Storage.restore(
        snapshot: latest.id, from: repository, to: arguments[4], secretsKey: .keyFile(arguments[5]))
    print(report.fileCount, report.verifiedKeys)
}

/// The median of `steps` by time.
func median(_ steps: [Step]) -> Step { steps.sorted { $0.seconds < $1.seconds }[steps.count / 2] }

/// Deterministic bytes: `text` mixes words (compressible, as PDF content streams); otherwise a slow random walk
/// (16-bit samples, as WAV audio: it compresses a little). Each starts with its format's header. Distinct seeds give
/// distinct files (the seed is scrambled into the generator's state, never zero).
func generate(bytes: Int, seed: UInt64, text: Bool) -> Data {
    let words = Array("BT /F1 12 Tf 72 712 Td (Quarterly report) Tj ET q 0.5 0 0 rg re f Q stream endstream ".utf8)
    var state = scrambled(seed)
    var out = [UInt8]()
    out.reserveCapacity(bytes + 64)
    if text {
        out += Array("%PDF-1.7\n%\u{e2}\u{e3}\n".utf8)
    } else {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        out += Array("RIFF".utf8) + le32(bytes - 8) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0, 1, 0]
        out += le32(44_100) + le32(88_200) + [2, 0, 16, 0] + Array("data".utf8) + le32(bytes - 44)
    }
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
    return Data(out.prefix(bytes))
}

/// A non-zero xorshift state for `seed`, one to one: the seed goes through SplitMix64's finalizer (a bijection of
/// 64-bit words), so two seeds never start the same walk. (Setting the low bit instead, as this generator once did,
/// made seeds 2k and 2k + 1 one file: half the generated PDFs and WAVs were duplicates, which flattered the backup
/// tools that deduplicate.)
func scrambled(_ seed: UInt64) -> UInt64 {
    var mixed = seed &+ 0x9E37_79B9_7F4A_7C15
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    mixed ^= mixed >> 31
    return mixed == 0 ? 0x2545_F491_4F6C_DD1D : mixed
}

/// What the store's values are put as.
enum Kind {
    static let pdf = DataDescriptor(kind: .file, estimatedSize: 4 << 20, contentType: "application/pdf")
    static let wav = DataDescriptor(kind: .file, estimatedSize: 8 << 20, contentType: "audio/wav")
    static let credential = DataDescriptor(kind: .credential, estimatedSize: 64)
}

/// Builds the store through the `Storage` API: records, the defaults suite and the secrets first, then PDFs
/// (60%) and WAVs (the rest) up to `total` bytes under the root.
/// - Returns: How many PDFs it holds.
func fill(_ root: String, work: String, total: Int, records: Int) throws -> Int {
    let storage = try Storage(root: root, secretsKey: secretsKey(work))
    let people = try storage.records.collection(Person.self, named: "people", indexes: [.field("age")])
    for start in stride(from: 0, to: records, by: 50_000) {
        try people.insert(contentsOf: (start..<min(records, start + 50_000)).map(person))
    }
    for index in 0..<1_000 {
        try storage.set("value \(index) of the preference", for: "preferences.key-\(index)")
        var token = [UInt8](repeating: 0, count: 32)
        for byte in token.indices { token[byte] = UInt8.random(in: 0...255) }
        try storage.put(Data(token), for: "tokens/service-\(index)", as: Kind.credential)
    }
    try storage.backend(for: .defaults).flush()
    var pdfs = 0
    var wavs = 0
    while folderSize(root) < total * 60 / 100 {
        try storage.put(generate(bytes: 4 << 20, seed: UInt64(pdfs + 1), text: true), for: pdfKey(pdfs), as: Kind.pdf)
        pdfs += 1
    }
    while folderSize(root) < total {
        try storage.put(
            generate(bytes: 8 << 20, seed: UInt64(1_000_000 + wavs), text: false), for: "audio/\(wavs).wav",
            as: Kind.wav)
        wavs += 1
    }
    return pdfs
}

func pdfKey(_ index: Int) -> String { "exports/report-\(index).pdf" }

/// Changes 1% of the store: PDFs rewritten with new content up to 1% of its bytes, and 1% of the records updated.
func change(_ root: String, work: String, bytes: Int, records: Int) throws {
    let storage = try Storage(root: root, secretsKey: secretsKey(work))
    var changed = 0
    var index = 0
    while changed < bytes / 100 {
        try storage.put(
            generate(bytes: 4 << 20, seed: UInt64(9_000_000 + index), text: true), for: pdfKey(index), as: Kind.pdf)
        changed += 4 << 20
        index += 1
    }
    let people = try storage.records.collection(Person.self, named: "people", indexes: [.field("age")])
    try storage.records.write { transaction in
        for index in stride(from: 0, to: records, by: 100) {
            var changed = person(index)
            changed.name += " (changed)"
            try transaction(people).update(changed)
        }
    }
}

/// A backup's time and bytes written beside restic's.
func backupRows(_ label: String, _ strata: Step, _ restic: (step: Step, written: Double), target: Double? = nil)
    -> [Comparison]
{
    [
        Comparison(label, operations: 1, strata: strata.seconds, baseline: restic.step.seconds, target: target),
        Comparison(
            label + ": bytes written", operations: 1, strata: max(strata.output[0], 1),
            baseline: max(restic.written, 1), target: target, unit: .bytes),
    ]
}

/// Whether `command` is on the path.
func has(_ command: String) -> Bool {
    ((try? Bench.shell("command -v \(command) >/dev/null 2>&1 && echo yes")) ?? "").hasPrefix("yes")
}

/// The bytes of the regular files under `path`.
func folderSize(_ path: String) -> Int {
    let files = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
    return files.reduce(0) {
        $0 + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + $1)[.size] as? Int) ?? 0)
    }
}

/// One measured step: its wall time, its peak resident memory and what it printed.
struct Step {
    var seconds: Double
    var peakBytes: Double
    var output: [Double]
}

/// Runs `command` (a shell command line) under `/usr/bin/time`: wall time and the peak resident memory of the
/// process and every process it waited for.
func measure(_ command: String, work: String) throws -> Step {
    let times = work + "/time.txt"
    let output = try Bench.shell("/usr/bin/time -f '%e %M' -o '\(times)' \(command)")
    let fields = (try String(contentsOfFile: times, encoding: .utf8)).split(whereSeparator: \.isWhitespace)
        .compactMap { Double($0) }
    guard fields.count == 2 else {
        throw StorageError(
            .io,
            "the step failed: \(command)\n\(output)\n\((try? String(contentsOfFile: times, encoding: .utf8)) ?? "")")
    }
    let printed = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    return Step(seconds: fields[0], peakBytes: fields[1] * 1024, output: printed)
}

func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }

/// The restores, `--restores N` times in turn: this build, the build `--restore-with` names (if any), restic.
/// - Returns: The medians of this build's restores and of restic's.
func restores(
    _ arguments: [String], me: String, repository: String, keyFile: String, secretsKeyFile: String, work: String,
    restic: String?
) throws -> (Step, Step?) {
    func value(_ flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { arguments.count > $0 + 1 ? arguments[$0 + 1] : nil }
    }
    let rounds = max(1, value("--restores").flatMap { Int($0) } ?? 1)
    var builds = [(label: "Strata", command: me)]
    if let other = value("--restore-with") { builds.append(("Strata (\(other))", "'\(other)'")) }
    var strata: [Step] = []
    var baseline: [Step] = []
    print("restores: load \((try? Bench.shell("uptime").trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?")")
    for _ in 0..<rounds {
        for build in builds {
            _ = try Bench.shell("sync")
            let step = try measure(
                "\(build.command) restore '\(repository)' '\(keyFile)' '\(work)/restored' '\(secretsKeyFile)'",
                work: work)
            print(
                "\(build.label) restore: \(String(format: "%.2f s", step.seconds)), "
                    + "\(Int(step.output.first ?? 0)) files, \(Int(step.output.last ?? 0)) keys verified, "
                    + "peak \(mib(step.peakBytes))")
            try? FileManager.default.removeItem(atPath: work + "/restored")
            if build.command == me { strata.append(step) }
        }
        if let restic {
            _ = try Bench.shell("sync")
            let step = try measure("\(restic) restore latest --target '\(work)/restic-restored'", work: work)
            print("restic restore: \(String(format: "%.2f s", step.seconds)), peak \(mib(step.peakBytes))")
            try? FileManager.default.removeItem(atPath: work + "/restic-restored")
            baseline.append(step)
        }
    }
    return (median(strata), baseline.isEmpty ? nil : median(baseline))
}

func run() throws {
    let arguments = CommandLine.arguments
    if arguments.count > 1, arguments[1] == "backup" { return try backupChild(arguments) }
    if arguments.count > 1, arguments[1] == "restore" { return try restoreChild(arguments) }
    let quick = arguments.contains("--quick")
    let sizeMiB =
        arguments.firstIndex(of: "--size-mib").flatMap { arguments.count > $0 + 1 ? Int(arguments[$0 + 1]) : nil }
        ?? (quick ? 128 : 1024)
    let records = quick ? 10_000 : 100_000
    guard has("/usr/bin/time") else {
        throw StorageError(.notFound, "/usr/bin/time is missing", recovery: "Run: Scripts/install-deps.sh time")
    }
    let work = try Bench.temporaryFolder("backup")
    defer {
        if arguments.contains("--keep-work") {
            // For a profile of one step: its subcommand, run again on what this run left.
            print("kept \(work): \(arguments[0]) backup|restore, as `backup` and `restore` above document")
        } else {
            try? FileManager.default.removeItem(atPath: work)
        }
    }
    let root = work + "/store"
    let secretsKeyFile = work + "/secrets.key"
    let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    _ = FileManager.default.createFile(
        atPath: secretsKeyFile, contents: Data(hex.utf8), attributes: [.posixPermissions: 0o600])
    let pdfCount = try fill(root, work: work, total: sizeMiB << 20, records: records)
    let storeBytes = folderSize(root)
    let fileCount = (try FileManager.default.subpathsOfDirectory(atPath: root)).count
    print(
        "store: \(storeBytes >> 20) MiB, \(fileCount) entries (\(records) records, \(pdfCount) PDFs, WAVs, "
            + "1,000 preferences, 1,000 secrets); \(ProcessInfo.processInfo.activeProcessorCount) cores; "
            + "load: \((try? Bench.shell("uptime").trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?")")

    let repository = work + "/repo"
    let keyFile = work + "/repo.key"
    try RepositoryKey.createKeyFile(at: keyFile)
    _ = try BackupRepository.create(at: repository, key: .keyFile(keyFile))
    let me = "'\(arguments[0])'"
    func backup(_ label: String, tiers: Bool = false) throws -> Step {
        let step = try measure(
            "\(me) backup '\(root)' '\(repository)' '\(keyFile)' '\(secretsKeyFile)'\(tiers ? " --backup-tiers" : "")",
            work: work)
        guard step.output.count == 3 else { throw StorageError(.io, "the backup printed \(step.output)") }
        print(
            "Strata \(label): \(String(format: "%.2f s", step.seconds)), \(mib(step.output[0])) written, "
                + "\(Int(step.output[1])) files (\(Int(step.output[2])) reused), peak \(mib(step.peakBytes))")
        return step
    }
    // restic: the same steps on the same root, in its own repository; bytes written are the repository's growth.
    let resticRepository = work + "/restic"
    let hasRestic = has("restic")
    let restic = "env RESTIC_PASSWORD=benchmark RESTIC_REPOSITORY='\(resticRepository)' restic --quiet"
    if hasRestic { _ = try Bench.shell("\(restic) init >/dev/null") }
    func resticBackup(_ label: String) throws -> (step: Step, written: Double)? {
        guard hasRestic else { return nil }
        let before = folderSize(resticRepository)
        let step = try measure("\(restic) backup '\(root)'", work: work)
        let written = Double(folderSize(resticRepository) - before)
        print(
            "restic \(label): \(String(format: "%.2f s", step.seconds)), \(mib(written)) written, "
                + "peak \(mib(step.peakBytes))")
        return (step, written)
    }

    _ = try Bench.shell("sync")
    let first = try backup("first backup", tiers: arguments.contains("--backup-tiers"))
    let resticFirst = try resticBackup("first backup")
    // tar -cz | age -r: one encrypted archive of the whole root (no dedup, nothing incremental).
    var age: (step: Step, bytes: Double)?
    if has("age"), has("age-keygen"), !arguments.contains("--without-tar") {
        _ = try Bench.shell("age-keygen -o '\(work)/age.key' 2>/dev/null")
        let archive = work + "/store.tar.gz.age"
        let recipient = try Bench.shell("age-keygen -y '\(work)/age.key'").trimmingCharacters(
            in: .whitespacesAndNewlines)
        let step = try measure(
            "sh -c \"tar -czf - -C '\(root)' . | age -r \(recipient) > '\(archive)'\"", work: work)
        let bytes = Double((try? FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int) ?? 0)
        try? FileManager.default.removeItem(atPath: archive)
        print("tar -cz | age -r: \(String(format: "%.2f s", step.seconds)), \(mib(bytes))")
        age = (step, bytes)
    }
    let second = try backup("second backup (unchanged)")
    let resticSecond = try resticBackup("second backup (unchanged)")
    try change(root, work: work, bytes: storeBytes, records: records)
    let third = try backup("third backup (1% changed)")
    let resticThird = try resticBackup("third backup (1% changed)")
    let repositoryBytes = Double(folderSize(repository))

    let (restored, resticRestore) = try restores(
        arguments, me: me, repository: repository, keyFile: keyFile, secretsKeyFile: secretsKeyFile, work: work,
        restic: hasRestic ? restic : nil)
    print(
        "repositories after three backups: Strata \(mib(repositoryBytes)), restic "
            + "\(mib(Double(hasRestic ? folderSize(resticRepository) : 0)))")
    print(
        String(
            format: "second/first: %.1f%% of the time, %.3f%% of the bytes; third wrote %.2f%% of the store",
            100 * second.seconds / first.seconds, 100 * second.output[0] / max(first.output[0], 1),
            100 * third.output[0] / Double(storeBytes)))

    let backupPeak = max(first.peakBytes, second.peakBytes, third.peakBytes)
    if let resticFirst, let resticSecond, let resticThird, let resticRestore {
        let resticBackupPeak = max(resticFirst.step.peakBytes, resticSecond.step.peakBytes, resticThird.step.peakBytes)
        Comparison.printTable(
            backupRows("first backup", first, resticFirst, target: 1)
                + backupRows("second backup (unchanged)", second, resticSecond)
                + backupRows("third backup (1% changed)", third, resticThird) + [
                    Comparison(
                        "restore", operations: 1, strata: restored.seconds, baseline: resticRestore.seconds, target: 1),
                    Comparison(
                        "peak memory: backup", operations: 1, strata: backupPeak, baseline: resticBackupPeak,
                        unit: .bytes),
                    Comparison(
                        "peak memory: restore", operations: 1, strata: restored.peakBytes,
                        baseline: resticRestore.peakBytes, unit: .bytes),
                ], baselineName: "restic")
    }
    if let age {
        Comparison.printTable(
            [
                Comparison("first backup", operations: 1, strata: first.seconds, baseline: age.step.seconds, target: 1),
                Comparison(
                    "first backup: size", operations: 1, strata: first.output[0], baseline: age.bytes, unit: .bytes),
            ], baselineName: "tar -cz|age")
    }
    // The issue's own targets: a second backup under 10% of the first's time and 1% of its bytes; peak memory of
    // backup and restore at most 128 MiB.
    Comparison.printTable(
        [
            Comparison(
                "second backup vs first: time", operations: 1, strata: second.seconds, baseline: first.seconds,
                target: 10),
            Comparison(
                "second backup vs first: bytes", operations: 1, strata: max(second.output[0], 1),
                baseline: first.output[0], target: 100, unit: .bytes),
        ], baselineName: "first backup")
    Comparison.printTable(
        [
            Comparison(
                "peak memory: backup", operations: 1, strata: backupPeak, baseline: 128 * 1_048_576, target: 1,
                unit: .bytes),
            Comparison(
                "peak memory: restore", operations: 1, strata: restored.peakBytes, baseline: 128 * 1_048_576, target: 1,
                unit: .bytes),
        ], baselineName: "128 MiB")
}

do { try run() } catch {
    FileHandle.standardError.write(Data("strata-bench-backup: \(error)\n".utf8))
    exit(1)
}
