import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue 36 items 10 and 12, through the real binary: the keyring's key file is `--secrets-key-file` and the
/// repository's `--repo-key-file` (`--key-file` stays where a verb opens one key, and `restore`, which opens two,
/// refuses it); `restore` and `verify` read sealed items back with the keyring's key file; a repository's key file
/// takes the keyring's forms (64 hex characters).
@Suite("strata CLI: which key a key file is")
struct KeyFileOptionCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    /// The keyring's key, as 64 hex characters.
    var secretsKey: String { directory.appending("secrets.key") }
    /// The repository's key, as 64 hex characters too (refused before issue 36).
    var repoKey: String { directory.appending("repo.key") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-key-files")
        for (path, byte) in [(directory.appending("secrets.key"), "a7"), (directory.appending("repo.key"), "c3")] {
            let hex = Data((String(repeating: byte, count: 32) + "\n").utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: hex, attributes: [.posixPermissions: 0o600]))
        }
    }

    /// `strata` with no key in its environment: every key comes from an option.
    func strata(_ arguments: [String], input: String? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: [
                "STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": "", "STRATA_PASSPHRASE": "", "STRATA_SECRETS_KEY": "",
            ],
            input: input.map { Data($0.utf8) })
    }

    /// A store holding a catalogued secret `api/token` under a keyring protected by ``secretsKey``, backed up into a
    /// repository made with ``repoKey``; returns the snapshot's id.
    func backedUpStore() throws -> String {
        let put = try strata(
            ["put", "api/token", "--kind", "credential", "--root", root, "--create", "--secrets-key-file", secretsKey],
            input: "tok_live")
        #expect(put.status == 0, "\(put.standardError)")
        let backup = try strata(["backup", root, "--repo", repo, "--init", "--repo-key-file", repoKey])
        #expect(backup.status == 0, "\(backup.standardError)")
        return try #require(backup.standardOutput.split(separator: " ").dropFirst().first.map(String.init))
    }

    @Test func restoreReadsSealedItemsBackWithTheSecretsKeyFile() throws {
        let id = try backedUpStore()
        let unread = try strata(
            ["restore", id, "--repo", repo, "--repo-key-file", repoKey, "--root", directory.appending("unread")])
        #expect(unread.status == 0, "\(unread.standardError)")
        #expect(
            unread.standardOutput.contains("1 secrets present but not read (no --secrets-key-file"),
            "\(unread.standardOutput)")
        let target = directory.appending("read")
        let read = try strata(
            [
                "restore", id, "--repo", repo, "--repo-key-file", repoKey, "--secrets-key-file", secretsKey, "--root",
                target,
            ])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardOutput.contains("keys read back"), "\(read.standardOutput)")
        #expect(!read.standardOutput.contains("not read"), "\(read.standardOutput)")
        // A wrong keyring key fails the restore and leaves nothing at the target.
        let wrong = directory.appending("wrong.key")
        #expect(
            FileManager.default.createFile(
                atPath: wrong, contents: Data((String(repeating: "11", count: 32)).utf8),
                attributes: [.posixPermissions: 0o600]))
        let refused = try strata(
            [
                "restore", id, "--repo", repo, "--repo-key-file", repoKey, "--secrets-key-file", wrong, "--root",
                directory.appending("wrong"),
            ])
        #expect(refused.status == 1, "\(refused.standardOutput)\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("wrong") + "/catalog"))
        // Verify of the restored store opens its items with the same option.
        let verified = try strata(["verify", target, "--secrets-key-file", secretsKey])
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        #expect(verified.standardOutput == "ok: every tier of \(target) is sound\n", "\(verified.standardOutput)")
        let unchecked = try strata(["verify", target])
        #expect(unchecked.status == 1)
        #expect(unchecked.standardOutput.contains("give --secrets-key-file"), "\(unchecked.standardOutput)")
    }

    @Test func keyFileOnRestoreIsRefusedNamingBothKeys() throws {
        let result = try strata(
            ["restore", "abc", "--repo", repo, "--key-file", repoKey, "--root", directory.appending("x")])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("--repo-key-file"), "\(result.standardError)")
        #expect(result.standardError.contains("--secrets-key-file"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("x")))
    }

    @Test func keyFileStaysWhereAVerbOpensOneKey() throws {
        _ = try backedUpStore()
        // The repository's key by either name on the backup verbs.
        for option in ["--repo-key-file", "--key-file"] {
            let listed = try strata(["snapshots", "--repo", repo, option, repoKey])
            #expect(listed.status == 0, "\(option): \(listed.standardError)")
        }
        // The keyring's key by either name on the secrets verbs, the engine's verbs and verify.
        for option in ["--secrets-key-file", "--key-file"] {
            let got = try strata(["get", "api/token", "--root", root, option, secretsKey])
            #expect(got.status == 0 && got.standardOutput == "tok_live", "\(option): \(got.standardError)")
            let listed = try strata(["secrets", "list", "--root", root, option, secretsKey])
            #expect(listed.status == 0, "\(option): \(listed.standardError)")
            #expect(try strata(["verify", root, option, secretsKey]).status == 0, "\(option)")
        }
        // Both names at once are one option given twice.
        let twice = try strata(
            ["secrets", "list", "--root", root, "--secrets-key-file", secretsKey, "--key-file", secretsKey])
        #expect(twice.status == 2 && twice.standardError.contains("--secrets-key-file"), "\(twice.standardError)")
        let twiceRepo = try strata(["snapshots", "--repo", repo, "--repo-key-file", repoKey, "--key-file", repoKey])
        #expect(twiceRepo.status == 2 && twiceRepo.standardError.contains("--repo-key-file"))
    }

    @Test func helpAndCompletionsNameTheKeyFileOptions() throws {
        let restore = CompletionAndHelpTests.optionNames(in: try strata(["restore", "--help"]).standardOutput)
        #expect(restore.contains("--repo-key-file") && restore.contains("--secrets-key-file"), "\(restore)")
        let backup = CompletionAndHelpTests.optionNames(in: try strata(["backup", "--help"]).standardOutput)
        #expect(backup.contains("--repo-key-file") && !backup.contains("--secrets-key-file"), "\(backup)")
        let secrets = CompletionAndHelpTests.optionNames(in: try strata(["secrets", "get", "--help"]).standardOutput)
        #expect(secrets.contains("--secrets-key-file") && !secrets.contains("--repo-key-file"), "\(secrets)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try strata(["completions", shell]).standardOutput
            #expect(script.contains("secrets-key-file") && script.contains("repo-key-file"), "\(shell)")
        }
    }

    /// Item 10: a repository made and opened with a key file of 64 hex characters (refused before, even on
    /// `--init`, with "Use the key file the repository was made with"); the same bytes raw open it too.
    @Test func aHexKeyFileMakesAndOpensARepository() throws {
        _ = try backedUpStore()
        let raw = directory.appending("raw.key")
        #expect(
            FileManager.default.createFile(
                atPath: raw, contents: Data(repeating: 0xC3, count: 32), attributes: [.posixPermissions: 0o600]))
        let listed = try strata(["snapshots", "--repo", repo, "--repo-key-file", raw, "--json"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains(#""fileCount":"#), "\(listed.standardOutput)")
    }
}
