import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The backup verbs (issue 19, item 6), run as the real binary: `backup`, `snapshots`, `restore`, `forget`, `prune`
/// and `check`, their JSON, their mistakes, Ctrl-C during a backup, and progress without a terminal.
@Suite("strata CLI: backup verbs")
struct BackupCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }
    static let secretsKeyHex = String(repeating: "5a", count: 32)
    static let secretsKey = KeyProvider.inMemory(Secret(Data(repeating: 0x5a, count: 32)))

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-backup")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
    }

    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": "", "STRATA_SECRETS_KEY": Self.secretsKeyHex]
                .merging(environment) { $1 })
    }

    /// `strata` with `--repo` and `--key-file`, expected to succeed.
    func succeeds(_ arguments: [String]) throws -> ChildProcess.Result {
        let result = try strata(arguments + ["--repo", repo, "--repo-key-file", keyFile])
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return result
    }

    /// A store with one value in each tier.
    func filledStore() throws -> Storage {
        let storage = try Storage(root: root, secretsKey: Self.secretsKey)
        try storage.put(
            Data("a token".utf8), for: "api/token", as: DataDescriptor(kind: .credential, estimatedSize: 16))
        try storage.put(
            Data(#"{"title":"note"}"#.utf8), for: "notes/1",
            as: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true))
        try storage.put(
            Data(repeating: 7, count: 300_000), for: "exports/report.pdf",
            as: DataDescriptor(kind: .file, estimatedSize: 300_000, contentType: "application/pdf"))
        try storage.set("dark", for: "theme")
        try storage.backend(for: .defaults).flush()
        return storage
    }

    static func json(_ text: String) throws -> JSONValue {
        try Data(text.utf8).withUnsafeBytes { try JSONValue.parse($0) }
    }

    func snapshotList() throws -> [JSONValue] {
        let listed = try succeeds(["snapshots", "--json"])
        guard case .array(let items) = try Self.json(listed.standardOutput) else {
            Issue.record("not a JSON array: \(listed.standardOutput)")
            return []
        }
        return items
    }

    /// A repository path with nothing at it is `not-found`, and the tool says how to create one (it was `io`,
    /// "No such file or directory"); the library's error carries the same remedy.
    @Test func aMissingRepositoryIsNotFoundAndTheToolSuggestsInit() throws {
        _ = try filledStore()
        for arguments in [["backup", root], ["snapshots"], ["check"]] {
            let result = try strata(arguments + ["--repo", repo, "--key-file", keyFile])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError.contains("not-found"), "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("--init"), "\(arguments): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: repo))
        let error = #expect(throws: StorageError.self) {
            try BackupRepository.open(at: repo, key: .keyFile(keyFile))
        }
        #expect(error?.code == .notFound && error?.remedy == .createRepository && error?.path == repo)
    }

    @Test func backupSnapshotsRestoreForgetPruneAndCheck() throws {
        let storage = try filledStore()
        let first = try succeeds(["backup", root, "--init"])
        #expect(first.standardOutput.hasPrefix("snapshot "), "\(first.standardOutput)")
        try storage.set("light", for: "theme")
        try storage.backend(for: .defaults).flush()  // A preference is written late; another process reads the file.
        let second = try succeeds(["backup", root, "--json"])
        guard case .object(let made) = try Self.json(second.standardOutput) else {
            Issue.record("not a JSON object: \(second.standardOutput)")
            return
        }
        // The unchanged files are taken from the first snapshot unread.
        // Issue 36 item 10: the count is `fileCount`, as `SnapshotSummary` names it; `files` repeats it for old scripts.
        guard case .integer(let reused) = made["reusedFiles"], case .integer(let files) = made["fileCount"] else {
            Issue.record("\(made)")
            return
        }
        #expect(reused > 0 && reused < files)
        #expect(made["files"] == made["fileCount"])

        let list = try snapshotList()
        #expect(list.count == 2)
        let table = try succeeds(["snapshots"]).standardOutput
        #expect(table.split(separator: "\n").count == 3 && table.contains("WRITTEN"), "\(table)")
        guard case .string(let latest) = list.last?["id"] else {
            Issue.record("no id: \(list)")
            return
        }

        let target = directory.appending("restored")
        let restored = try succeeds(["restore", String(latest.prefix(8)), "--root", target])
        #expect(restored.standardOutput.contains("keys read back"), "\(restored.standardOutput)")
        let copy = try Storage(root: target, secretsKey: Self.secretsKey)
        #expect(try copy.value(String.self, for: "theme") == "light")
        #expect(try copy.data(for: "api/token") == Data("a token".utf8))
        #expect(try copy.data(for: "exports/report.pdf") == Data(repeating: 7, count: 300_000))

        // One key back into a store that changed since.
        try storage.set("blue", for: "theme")
        try storage.backend(for: .defaults).flush()
        let one = try succeeds(["restore", String(latest.prefix(8)), "--root", root, "--prefix", "theme"])
        #expect(one.standardOutput.contains("1 keys restored"), "\(one.standardOutput)")
        #expect(try Storage(root: root, secretsKey: Self.secretsKey).value(String.self, for: "theme") == "light")

        #expect(try succeeds(["check", "--read-data"]).standardOutput.contains("no problems"))
        #expect(try succeeds(["check", "--read-data-subset", "50%", "--json"]).standardOutput.contains(#""ok":true"#))
        let dry = try succeeds(["forget", "--keep-last", "1", "--dry-run"])
        #expect(dry.standardOutput.contains("1 would be forgotten"), "\(dry.standardOutput)")
        #expect(try snapshotList().count == 2)
        _ = try succeeds(["forget", "--keep-last", "1"])
        #expect(try snapshotList().count == 1)
        let pruned = try succeeds(["prune", "--json"]).standardOutput
        #expect(pruned.contains(#""blobsRemoved":"#), "\(pruned)")
        #expect(try succeeds(["check", "--read-data"]).status == 0)
        // The snapshot kept still restores.
        _ = try succeeds(["restore", String(latest.prefix(8)), "--root", directory.appending("again")])
    }

    @Test func thePassphraseComesFromTheEnvironmentAndAWrongOneFails() throws {
        _ = try filledStore()
        let made = try strata(
            ["backup", root, "--repo", repo, "--init"], environment: ["STRATA_BACKUP_PASSPHRASE": "correct horse"])
        #expect(made.status == 0, "\(made.standardError)")
        let wrong = try strata(["snapshots", "--repo", repo], environment: ["STRATA_BACKUP_PASSPHRASE": "wrong"])
        #expect(wrong.status == 1)
        #expect(wrong.standardError.hasPrefix("strata snapshots: error:"), "\(wrong.standardError)")
        let right = try strata(
            ["snapshots", "--repo", repo], environment: ["STRATA_BACKUP_PASSPHRASE": "correct horse"])
        #expect(right.status == 0 && right.standardOutput.split(separator: "\n").count == 2, "\(right.standardOutput)")
    }

    @Test(arguments: [
        (["snapshots"], "'--repo DIR' is required"),
        (["forget", "--repo", "r"], "or at least one of --keep-last"),
        (["forget", "abc", "--repo", "r", "--keep-last", "1"], "not both"),
        (["forget", "--repo", "r", "--keep-last", "-1"], "takes a whole number"),
        (["check", "--repo", "r", "--read-data-subset", "0%"], "more than 0%"),
        (["check", "--repo", "r", "--read-data-subset", "ten"], "takes a percentage"),
        (["check", "--repo", "r", "--read-data", "--read-data-subset", "5%"], "not both"),
        (["restore", "abc", "--repo", "r"], "'--root NEW' is required"),
        (["backup", "--repo", "r"], "'--root DIR' is required"),
        (["backup", "a", "b", "--repo", "r"], "expected at most one ROOT, got 2"),
        (["backup", "x", "--repo", "r", "--passphrase", "p"], "unknown option '--passphrase'"),
    ])
    func mistakesAreUsageErrors(arguments: [String], message: String) throws {
        let result = try strata(arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        // An unknown option's message names the command itself (`for 'strata backup'`).
        #expect(
            result.standardError.hasPrefix("strata \(arguments[0]): ")
                || result.standardError.contains("for 'strata \(arguments[0])'"), "\(result.standardError)")
    }

    @Test func damageMakesCheckFailNamingIt() throws {
        _ = try filledStore()
        _ = try succeeds(["backup", root, "--init"])
        let packs = try FileManager.default.contentsOfDirectory(atPath: repo + "/data")
        let pack = repo + "/data/" + (try #require(packs.first))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pack))
        bytes[bytes.count / 3] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: pack))
        let result = try strata(["check", "--read-data", "--repo", repo, "--key-file", keyFile])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("problem: "), "\(result.standardOutput)")
        #expect(result.standardError.contains("the repository is damaged"), "\(result.standardError)")
    }

    @Test func withoutATerminalProgressIsPlainLines() throws {
        _ = try filledStore()
        let result = try succeeds(["backup", root, "--init"])
        #expect(!result.standardError.contains("\u{1B}"), "\(result.standardError)")
        #expect(result.standardError.contains("backup: 100% ("), "\(result.standardError)")
    }

    /// Ctrl-C in the middle of a backup commits no snapshot and leaves no temporary in the repository.
    @Test func ctrlCDuringABackupCommitsNothing() throws {
        let files = try FileStore(root: root)
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        for index in 0..<6 { try files.write(random.readData(ofLength: 16 << 20), to: "big/part-\(index).bin") }
        _ = try BackupRepository.create(at: repo, key: .keyFile(keyFile))
        let run = try PseudoTerminal.run(
            try TestExecutables.url(named: "strata"), ["backup", root, "--repo", repo, "--key-file", keyFile],
            steps: [.type("\u{3}", after: "%", delay: 0)], columns: 100,
            environment: ["STRATA_ROOT": "", "TERM": "xterm"], in: directory)
        #expect(run.signal == Int(SIGINT), "\(run.output.suffix(400).debugDescription)")
        #expect(run.output.contains("strata backup: stopped by"), "\(run.output.suffix(300).debugDescription)")
        #expect(try BackupRepository.open(at: repo, key: .keyFile(keyFile)).snapshots().isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: repo + "/data").filter {
            $0.hasPrefix(AtomicFile.temporaryPrefix)
        }
        #expect(left.isEmpty, "temporaries left: \(left)")
    }
}
