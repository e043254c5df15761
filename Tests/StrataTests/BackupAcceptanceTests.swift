import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 19's acceptance, end to end through the real `strata` binary and a real repository: `strata backup`
/// killed with SIGKILL before 100 system calls spread over its run, a backup while four processes write every tier, and a
/// byte scan of the repository for any stored value or key name.
@Suite("Backup: acceptance through the strata binary")
struct BackupAcceptanceTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }

    /// Small chunks and packs: a store of a few MiB makes hundreds of blobs, so kills fall everywhere.
    static var smallChunks: BackupOptions {
        var options = BackupOptions()
        options.minimumChunk = 4 << 10
        options.averageChunk = 16 << 10
        options.maximumChunk = 64 << 10
        options.packSize = 256 << 10
        return options
    }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-backup-acceptance")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
    }

    /// Runs `strata` on the repository; with `killAt`, killed before that system call changing the repository
    /// (0: none, and the run reports how many there were).
    func strata(_ arguments: [String], killAt point: Int? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments + ["--repo", repo, "--repo-key-file", keyFile],
            environment: ["STRATA_ROOT": "", "STRATA_SECRETS_KEY": testSecretsKeyHex].merging(
                point.map { FaultKill(on: repo).environment(at: $0) } ?? [:]
            ) { $1 })
    }

    func repository(at path: String? = nil) throws -> BackupRepository {
        try BackupRepository.open(at: path ?? repo, key: .keyFile(keyFile))
    }

    /// Every file of a snapshot, path → content.
    func contents(of id: String, in repository: BackupRepository) throws -> [String: [UInt8]] {
        let reader = try repository.snapshot(id)
        defer { reader.close() }
        var out: [String: [UInt8]] = [:]
        for file in reader.files { out[file.path] = try reader.contents(of: file) }
        return out
    }

    /// Random bytes (incompressible, so each makes its own chunks).
    static func noise(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Fills every tier: `files` files of 96 KiB, 30 records, 30 preferences and 30 secrets, keys tagged `tag`.
    func fill(_ storage: Storage, tag: String, files: Int) throws {
        for index in 0..<files {
            try storage.put(Self.noise(96 << 10), for: "\(tag)/file-\(index).bin", as: descriptorForTier[.files]!)
        }
        for index in 0..<30 {
            try storage.put(
                Data(#"{"n":\#(index),"tag":"\#(tag)"}"#.utf8), for: "\(tag)/record-\(index)",
                as: descriptorForTier[.records]!)
            try storage.set("\(tag)-\(index)", for: "\(tag).preference-\(index)")
            try storage.put(
                Data("\(tag) secret \(index)".utf8), for: "\(tag)/secret-\(index)", as: descriptorForTier[.secrets]!)
        }
        // Preferences are written late: the backup runs in another process and reads the suite's file.
        try storage.backend(for: .defaults).flush()
    }

    /// SIGKILL of `strata backup` before 100 system calls spread over its run (the writes of blobs to packs,
    /// every pack and index flushed and named, the snapshot's commit): after each, the committed snapshot reads back whole, `check --read-data`
    /// finds nothing wrong, and the next backup succeeds and restores.
    @Test func sigkillAt100PointsLeavesARepositoryThatWorks() throws {
        let storage = try openStorage(root)
        try fill(storage, tag: "early", files: 4)
        _ = try BackupRepository.create(at: repo, key: .keyFile(keyFile), options: Self.smallChunks)
        let committed = try storage.backup(to: try repository()).snapshot
        let earlier = try contents(of: committed.id, in: try repository())
        try fill(storage, tag: "late", files: 20)  // Its 30 small secrets are one manifest, not 30 files.
        let pristine = directory.appending("pristine")
        try FileManager.default.copyItem(atPath: repo, toPath: pristine)

        // The calls of an uninterrupted run that change the repository.
        let whole = try strata(["backup", root], killAt: 0)
        #expect(whole.status == 0, "\(whole.standardError)")
        let made = try repository().snapshots().last!
        let total = try #require(FaultKill.matchedCalls(in: whole.standardError))
        try #require(total >= 100, "only \(total) calls")

        var kills = 0
        for (step, point) in FaultKill.spread(100, over: total).enumerated() {
            try FileManager.default.removeItem(atPath: repo)
            try FileManager.default.copyItem(atPath: pristine, toPath: repo)
            let killed = try strata(["backup", root], killAt: point)
            #expect(killed.wasSignalled || killed.status == 0, "point \(point): \(killed.standardError)")
            if killed.wasSignalled { kills += 1 }
            let repository = try repository()
            #expect(try contents(of: committed.id, in: repository) == earlier, "point \(point)")
            let health = try repository.check(readData: .all)
            #expect(health.isSound, "point \(point): \(health.problems)")
            // The next backup succeeds and holds the whole store.
            let next = try storage.backup(to: repository).snapshot
            #expect(next.fileCount == made.fileCount, "point \(point)")
            if step % 25 == 0 {
                let target = directory.appending("restored-\(step)")
                try Storage.restore(snapshot: next.id, from: repository, to: target, secretsKey: testSecretsKey)
                #expect(try openStorage(target).data(for: "late/secret-7") == Data("late secret 7".utf8))
            }
        }
        // The calls counted fall inside the run: (almost) every one of them killed it.
        #expect(kills >= 95, "only \(kills) of 100 runs were killed")
    }

    /// `strata backup` while four processes write every tier: the restored store is a state that existed during
    /// the backup (each writer's acknowledged rounds present, no value torn, the tiers in write order).
    @Test func backupWhileFourProcessesWrite() throws {
        _ = try openStorage(root)
        _ = try BackupRepository.create(at: repo, key: .keyFile(keyFile))
        let writers = try (0..<4).map { id in
            try ChildProcess(
                try TestExecutables.url(named: "strata-test-child"), ["capture-writer", root, "\(id)"],
                environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
        }
        defer { for writer in writers { writer.kill(SIGKILL) } }
        for writer in writers { _ = try writer.waitForLine(timeout: 120) { $0 == "wrote 3" } }
        let acknowledged = writers.map { writer in
            writer.lines.compactMap { $0.hasPrefix("wrote ") ? Int($0.dropFirst(6)) : nil }.max() ?? 0
        }
        let backup = try strata(["backup", root])
        #expect(backup.status == 0, "\(backup.standardError)")
        for writer in writers {
            writer.kill(SIGKILL)
            _ = writer.wait()
        }
        let id = try #require(try repository().snapshots().last?.id)
        let target = directory.appending("restored")
        let restore = try strata(["restore", id, "--root", target])
        #expect(restore.status == 0, "\(restore.standardError)")
        let restored = try openStorage(target)
        #expect(try restored.verifyCatalog().isSound)
        for id in 0..<4 {
            let rounds = try captureWriterTiers.map { tier -> Int in
                let round = CaptureProcessTests.round(of: try restored.data(for: "w\(id)/\(tier)"))
                #expect(round != nil, "w\(id)/\(tier) is torn or missing")
                return round ?? -1
            }
            #expect(rounds.allSatisfy { $0 >= acknowledged[id] }, "writer \(id): \(rounds) < \(acknowledged[id])")
            #expect(zip(rounds, rounds.dropFirst()).allSatisfy { $0 >= $1 } && rounds[0] <= rounds[3] + 1, "\(rounds)")
        }
    }

    /// No byte sequence of any stored value or key name appears in any file of the repository, in any tier.
    @Test func theRepositoryHoldsNoPlaintext() throws {
        let storage = try openStorage(root)
        var needles: [String] = []
        for tier in Tier.allCases {
            let key = "scan-\(tier)-key-Q7ZX"
            let value = "scan-\(tier)-value-J4WK " + String(repeating: "plaintext ", count: 40)
            try storage.put(Data(value.utf8), for: key, as: descriptorForTier[tier]!)
            needles += [key, "scan-\(tier)-value-J4WK"]
        }
        try storage.set("scan-preference-value-H2", for: "scan-preference-key-H2")
        try storage.backend(for: .defaults).flush()
        needles += [
            "scan-preference-value-H2", "scan-preference-key-H2", "main.sqlite", "keyring.json", "SQLite format",
        ]
        _ = try BackupRepository.create(at: repo, key: .keyFile(keyFile))
        let backup = try strata(["backup", root])
        #expect(backup.status == 0, "\(backup.standardError)")
        let walker = try #require(FileManager.default.enumerator(atPath: repo))
        var scanned = 0
        for case let name as String in walker {
            let path = repo + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            scanned += bytes.count
            for needle in needles {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) in \(name)")
            }
        }
        #expect(scanned > 4_000)
    }
}
