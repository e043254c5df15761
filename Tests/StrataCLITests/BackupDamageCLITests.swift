import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataBackup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The backup verbs on a repository with one damaged or foreign file (issue 33, items 5, 8 and 13), run as the real
/// binary: each goes on around the file, says so on standard error (or lists it), and `check --repair` rebuilds the
/// index from the packs.
@Suite("strata CLI: backup verbs around damage")
struct BackupDamageCLITests {
    let directory: TemporaryDirectory
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-damage")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
        var options = BackupOptions()
        (options.minimumChunk, options.averageChunk, options.maximumChunk) = (4 << 10, 16 << 10, 64 << 10)
        options.packSize = 128 << 10
        _ = try BackupRepository.create(at: directory.appending("repo"), key: .keyFile(keyFile), options: options)
    }

    func strata(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments + ["--repo", repo, "--repo-key-file", keyFile],
            environment: ["STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": ""])
    }

    /// A store whose files tier holds `files` (key → content).
    func store(_ name: String, _ files: [String: [UInt8]]) throws -> String {
        let root = directory.appending(name)
        let store = try FileStore(root: root)
        for (key, content) in files { try store.write(Data(content), to: key) }
        return root
    }

    /// Three snapshots of three stores, each with a file of its own; their ids, roots, and each one's index file.
    func threeBackups() throws -> (ids: [String], roots: [String], indexes: [String]) {
        var (ids, roots, indexes) = ([String](), [String](), [String]())
        for round in 0..<3 {
            let root = try store("store-\(round)", ["own-\(round).bin": bytes(150_000, seed: round)])
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: repo + "/index"))
            let made = try strata(["backup", root, "--json"])
            #expect(made.status == 0, "\(made.standardError)")
            guard case .string(let id) = try json(made.standardOutput)["id"] else {
                Issue.record("no id: \(made.standardOutput)")
                return (ids, roots, indexes)
            }
            ids.append(id)
            roots.append(root)
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: repo + "/index"))
            indexes.append(repo + "/index/" + (try #require(after.subtracting(before).first)))
        }
        return (ids, roots, indexes)
    }

    func bytes(_ count: Int, seed: Int) -> [UInt8] {
        var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    func json(_ text: String) throws -> JSONValue { try Data(text.utf8).withUnsafeBytes { try JSONValue.parse($0) } }

    func flip(_ path: String, at offset: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[offset >= 0 ? offset : data.count + offset] ^= 0x20
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Restores `id` into a new root and returns the content of `key` there.
    func restored(_ id: String, _ key: String) throws -> Data? {
        let target = directory.appending("restored-\(UUID().uuidString)")
        let result = try strata(["restore", id, "--root", target])
        guard result.status == 0 else { return nil }
        return try FileStore(root: target).read(key)
    }

    @Test func aDamagedIndexFileOfALaterBackupBlocksNothingElseAndRepairRebuildsIt() throws {
        let (ids, roots, indexes) = try threeBackups()
        try flip(indexes[2], at: 40)
        #expect(try restored(ids[0], "own-0.bin") == Data(bytes(150_000, seed: 0)))
        let missing = try strata(["restore", ids[2], "--root", directory.appending("x")])
        #expect(missing.status == 1 && missing.standardError.contains("check --repair"), "\(missing.standardError)")
        let backup = try strata(["backup", try store("store-3", ["new.bin": bytes(50_000, seed: 3)])])
        #expect(backup.status == 0, "\(backup.standardError)")
        #expect(backup.standardError.contains("warning: index file"), "\(backup.standardError)")
        #expect(backup.standardError.contains("check --repair"))
        let prune = try strata(["prune"])
        #expect(prune.status == 0, "\(prune.standardError)")
        #expect(prune.standardError.contains("warning: index file"), "\(prune.standardError)")
        let check = try strata(["check"])
        #expect(check.status == 1 && check.standardOutput.contains(indexes[2]), "\(check.standardOutput)")
        let repair = try strata(["check", "--repair", "--read-data"])
        #expect(repair.status == 0, "\(repair.standardOutput) \(repair.standardError)")
        #expect(repair.standardOutput.contains("(1 damaged)") && repair.standardOutput.contains("no problems"))
        #expect(try strata(["check", "--json"]).standardOutput.contains(#""ok":true"#))
        for (round, id) in ids.enumerated() {
            #expect(try restored(id, "own-\(round).bin") == Data(bytes(150_000, seed: round)), "\(roots[round])")
        }
    }

    @Test func aDamagedSnapshotFileIsListedAndBackupAndForgetGoOn() throws {
        let (ids, roots, _) = try threeBackups()
        try flip(repo + "/snapshots/" + ids[1], at: 30)
        let listed = try strata(["snapshots"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("\(ids[1].prefix(12))  damaged, left out: authentication-failed"))
        #expect(listed.standardOutput.contains(String(ids[0].prefix(12))))
        guard case .array(let items) = try json(try strata(["snapshots", "--json"]).standardOutput) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 3)
        let damaged = items.filter { $0["damage"] != .null }
        #expect(damaged.count == 1 && damaged.first?["id"] == .string(ids[1]))
        #expect(damaged.first?["damage"]?["code"] == .string("authentication-failed"))
        let backup = try strata(["backup", roots[2]])
        #expect(
            backup.status == 0 && backup.standardError.contains("warning: snapshot file"), "\(backup.standardError)")
        let forget = try strata(["forget", "--keep-last", "1"])
        #expect(forget.status == 0, "\(forget.standardError)")
        #expect(forget.standardOutput.contains("1 damaged left as they are"), "\(forget.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: repo + "/snapshots/" + ids[1]))
        let prune = try strata(["prune"])
        #expect(prune.status == 0 && prune.standardError.contains("no data was removed"), "\(prune.standardError)")
        let byID = try strata(["forget", String(ids[1].prefix(10))])
        #expect(byID.status == 0 && byID.standardOutput.contains("1 forgotten"), "\(byID.standardError)")
        #expect(try strata(["prune"]).standardError.isEmpty)
        #expect(try strata(["check", "--read-data"]).status == 0)
    }

    @Test func aSnapshotTimeOutOfRangeIsDamageNotAYear() throws {
        let (ids, _, _) = try threeBackups()
        let repository = try BackupRepository.open(at: repo, key: .keyFile(keyFile))
        var manifest = try SnapshotManifest.read(ids[0], in: repository.snapshotFolder, keys: repository.keys)
        manifest.time = Date(timeIntervalSince1970: .nan)
        try Data(SealedFile.seal(manifest.encoded(), kind: .snapshot, name: ids[0], key: repository.keys.seal)).write(
            to: URL(fileURLWithPath: repo + "/snapshots/" + ids[0]))
        let listed = try strata(["snapshots"])
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("\(ids[0].prefix(12))  damaged, left out: corrupt"))
        #expect(listed.standardOutput.contains("attribute time"), "\(listed.standardOutput)")
        #expect(!listed.standardOutput.contains("-4712"))
    }

    @Test func pruneLeavesWhatItDidNotWriteAndRunsAgain() throws {
        let (ids, _, _) = try threeBackups()
        try Data("about this folder\n".utf8).write(to: URL(fileURLWithPath: repo + "/data/README"))
        try FileManager.default.createDirectory(atPath: repo + "/data/keep", withIntermediateDirectories: false)
        _ = try strata(["forget", ids[0]])
        for run in 0..<2 {
            let prune = try strata(["prune", "--json"])
            #expect(prune.status == 0, "run \(run): \(prune.standardError)")
            #expect(prune.standardError.contains("left alone: \(repo)/data/README"), "\(prune.standardError)")
        }
        #expect(FileManager.default.fileExists(atPath: repo + "/data/README"))
        #expect(FileManager.default.fileExists(atPath: repo + "/data/keep"))
        let check = try strata(["check"])
        #expect(check.status == 0 && check.standardOutput.contains("not the repository's (left alone)"))
    }
}
