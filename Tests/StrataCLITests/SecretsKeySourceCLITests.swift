import Foundation
import Strata
import StrataTestSupport
import Testing

/// Where the secrets tier's key comes from, through the real binary and the API in a process of its own (the
/// environment is the process's): issue 33 items 10 and 15.
@Suite("strata CLI: the secrets key's source and form")
struct SecretsKeySourceCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var repoKey: String { directory.appending("repo.key") }
    /// A key that has nothing to do with the store's keyring.
    static let unrelatedKeyHex = String(repeating: "3c", count: 32)

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-key-source")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
    }

    func strata(_ arguments: [String], _ environment: [String: String], input: String? = nil) throws
        -> ChildProcess.Result
    {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_BACKUP_PASSPHRASE": "", "STRATA_PASSPHRASE": ""]
                .merging(environment) { $1 }, input: input.map { Data($0.utf8) })
    }

    /// A store whose keyring is protected by the passphrase `pw`, holding `s/a` = `v`.
    func passphraseStore() throws {
        let made = try strata(
            ["secrets", "set", "s", "a", "--root", root, "--create"], ["STRATA_PASSPHRASE": "pw"], input: "v")
        #expect(made.status == 0, "\(made.standardError)")
    }

    /// Item 15: an unrelated `STRATA_SECRETS_KEY` does not stand in for the passphrase of the keyring: the backup
    /// copies the sealed keyring (it needs no key), and the restore brings it back, opened by its passphrase.
    @Test func anUnrelatedEnvironmentKeyDoesNotFailTheBackupOfAPassphraseKeyring() throws {
        try passphraseStore()
        let unrelated = ["STRATA_SECRETS_KEY": Self.unrelatedKeyHex]
        let backup = try strata(["backup", root, "--repo", repo, "--init", "--key-file", repoKey], unrelated)
        #expect(backup.status == 0, "\(backup.standardError)")
        #expect(backup.standardOutput.hasPrefix("snapshot "), "\(backup.standardOutput)")
        let target = directory.appending("restored")
        let id = try #require(backup.standardOutput.split(separator: " ").dropFirst().first.map(String.init))
        let restored = try strata(
            ["restore", id, "--root", target, "--repo", repo, "--repo-key-file", repoKey], unrelated)
        #expect(restored.status == 0, "\(restored.standardError)")
        let read = try strata(["secrets", "get", "s", "a", "--root", target, "--show"], ["STRATA_PASSPHRASE": "pw"])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardOutput == "v\n")
    }

    /// Item 15 through the API: `Storage(root:)` given no key, in a process whose environment holds an unrelated
    /// key, backs a passphrase keyring up.
    @Test func theAPIBacksAPassphraseKeyringUpBesideAnUnrelatedEnvironmentKey() throws {
        try passphraseStore()
        let child = try ChildProcess.run(
            try TestExecutables.url(named: "strata-test-child"), ["storage-backup", root, repo, repoKey],
            environment: ["STRATA_SECRETS_KEY": Self.unrelatedKeyHex, "STRATA_ROOT": ""])
        #expect(child.status == 0, "\(child.standardError)")
        let lines = child.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "no error, nothing left out: \(lines)")
        let id = try #require(lines.first?.split(separator: " ").dropFirst().first.map(String.init))
        let snapshot = try BackupRepository.open(at: repo, key: .keyFile(repoKey)).snapshot(id)
        defer { snapshot.close() }
        let paths = Set(snapshot.files.map { $0.path })
        #expect(paths.contains("secrets/default/keyring.json"), "\(paths.sorted())")
        #expect(paths.contains("secrets/default/items.manifest"), "\(paths.sorted())")
        #expect(paths.contains("secrets/default/items.anchor"), "the manifest's anchor too: \(paths.sorted())")
    }

    /// Item 10: a `STRATA_SECRETS_KEY` of 32 characters of text is refused, with the forms it takes; it neither
    /// creates a keyring nor opens one.
    @Test func textInStrataSecretsKeyIsRefused() throws {
        let text = ["STRATA_SECRETS_KEY": "passwordpasswordpasswordpassword"]
        let refused = try strata(["secrets", "set", "s", "a", "--root", root, "--create"], text, input: "v")
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("invalid-argument"), "\(refused.standardError)")
        #expect(refused.standardError.contains("64 hex characters or base64"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: root + "/secrets/default/keyring.json"))
        // The same bytes as hex are a key: they make and open the keyring.
        let hex = Array("passwordpasswordpasswordpassword".utf8).map { String(format: "%02x", $0) }.joined()
        let made = try strata(
            ["secrets", "set", "s", "a", "--root", root, "--create"], ["STRATA_SECRETS_KEY": hex], input: "v")
        #expect(made.status == 0, "\(made.standardError)")
        let read = try strata(["secrets", "get", "s", "a", "--root", root], text)
        #expect(read.status != 0)
        #expect(read.standardError.contains("64 hex characters or base64"), "\(read.standardError)")
    }
}
