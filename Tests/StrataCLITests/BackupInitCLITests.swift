import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strata backup --init` and the key files of the backup verbs, run as the real binary (issue 33, items 7, 14 and
/// 16): a failed or killed `--init` never blocks the next one, a folder others may change is refused, and a key file
/// another user owns opens nothing and is never added as a slot.
@Suite("strata CLI: making a backup repository, and its key files")
struct BackupInitCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-init")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
        try FileStore(root: directory.appending("store")).write(Data("v".utf8), to: "a.txt")
    }

    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": ""].merging(environment) { $1 })
    }

    func initialize(keyFile file: String? = nil, environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try strata(["backup", root, "--repo", repo, "--init", "--key-file", file ?? keyFile], environment: environment)
    }

    @Test func aFailedInitLeavesNothingAndTheNextInitSucceeds() throws {
        let open = directory.appending("open.key")
        try RepositoryKey.createKeyFile(at: open)
        chmod(open, 0o644)
        let failed = try initialize(keyFile: open)
        #expect(failed.status == 1 && failed.standardError.contains("unsafe-permissions"), "\(failed.standardError)")
        #expect(!FileManager.default.fileExists(atPath: repo))
        let made = try initialize()
        #expect(made.status == 0, "\(made.standardError)")
    }

    /// Killed before the repository's folders are made (its second `mkdir`), before its key slot is named (its
    /// first `rename`), and before its configuration is (the second).
    @Test(arguments: [("mkdir", 2), ("rename", 1), ("rename", 2)])
    func aKilledInitDoesNotBlockTheNextOne(calls: String, point: Int) throws {
        let kill = FaultKill(calls.split(separator: ",").map(String.init), on: repo)
        let killed = try initialize(environment: kill.environment(at: point))
        #expect(killed.wasSignalled && killed.status == SIGKILL, "\(killed.standardError)")
        #expect(!FileManager.default.fileExists(atPath: repo + "/config"))
        let made = try initialize()
        #expect(made.status == 0, "\(made.standardError)")
        #expect(try strata(["snapshots", "--repo", repo, "--key-file", keyFile]).standardOutput.contains("HOST"))
    }

    @Test func aFolderEveryUserMayWriteInIsRefused() throws {
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: false)
        chmod(repo, 0o777)
        let refused = try initialize()
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect(refused.standardError.contains("unsafe-permissions"), "\(refused.standardError)")
        #expect(refused.standardError.contains("chmod o-w"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: repo).isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a folder to another user"))
    func aFolderOfAnotherUserIsRefused() throws {
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: false)
        chmod(repo, 0o700)
        chown(repo, 65534, 65534)
        let refused = try initialize()
        #expect(
            refused.status == 1 && refused.standardError.contains("belongs to user 65534"), "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: repo).isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a key file to another user"))
    func aKeyFileOfAnotherUserOpensNothingAndIsNeverAdded() throws {
        #expect(try initialize().status == 0)
        let theirs = directory.appending("theirs.key")
        let added = try strata([
            "key", "add", "--repo", repo, "--key-file", keyFile, "--new-key-file", theirs, "--create-key-file",
        ])
        #expect(added.status == 0, "\(added.standardError)")
        chown(theirs, 65534, 65534)
        let opened = try strata(["snapshots", "--repo", repo, "--key-file", theirs])
        #expect(opened.status == 1 && opened.standardError.contains("unsafe-permissions"), "\(opened.standardError)")
        let foreign = directory.appending("foreign.key")
        try RepositoryKey.createKeyFile(at: foreign)
        chown(foreign, 65534, 65534)
        let refused = try strata(["key", "add", "--repo", repo, "--key-file", keyFile, "--new-key-file", foreign])
        #expect(
            refused.status == 1 && refused.standardError.contains("belongs to user 65534"), "\(refused.standardError)")
        let slots = try strata(["key", "list", "--repo", repo, "--key-file", keyFile])
        #expect(slots.standardOutput.split(separator: "\n").count == 2, "\(slots.standardOutput)")
    }
}
