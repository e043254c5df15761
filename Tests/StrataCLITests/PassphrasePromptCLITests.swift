import Foundation
import Strata
import StrataTestSupport
import Testing

/// Without a terminal to ask at, a verb that needs a passphrase names the options and variables that give it for
/// what it opens: the keyring (`--secrets-key-file`, never the old `--key-file` alone), a backup repository
/// (`--repo-key-file`), or the new passphrase or key being set.
@Suite("strata CLI: where else a passphrase comes from")
struct PassphrasePromptCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-no-terminal")
    }

    /// `strata` in a new session (`setsid`): it has no controlling terminal, so `/dev/tty` cannot be opened.
    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/setsid"), ["-w", try TestExecutables.url(named: "strata").path] + arguments,
            environment: ["STRATA_ROOT": ""].merging(environment) { $1 })
    }

    @Test func keyringPassphrase() throws {
        let set = try strata(
            ["secrets", "set", "api", "alice", "--root", root, "--create"], environment: ["STRATA_PASSPHRASE": "pw"])
        try #require(set.status == 0, "\(set.standardError)")
        let list = try strata(["secrets", "list", "--root", root])
        #expect(list.status == 1)
        #expect(list.standardError.contains("there is no terminal to ask for the keyring's passphrase"))
        #expect(
            list.standardError.contains(
                "Use --passphrase-file FILE, --secrets-key-file FILE, STRATA_PASSPHRASE or STRATA_SECRETS_KEY"),
            "\(list.standardError)")
        let passwd = try strata(["secrets", "passwd", "--root", root], environment: ["STRATA_PASSPHRASE": "pw"])
        #expect(passwd.status == 1)
        #expect(passwd.standardError.contains("the keyring's new passphrase"), "\(passwd.standardError)")
        #expect(passwd.standardError.contains("--new-passphrase-file FILE or STRATA_NEW_PASSPHRASE"))
    }

    @Test func repositoryPassphrase() throws {
        let storage = try Storage(root: root)
        try storage.set("dark", for: "theme")
        try storage.backend(for: .defaults).flush()
        let backup = try strata(["backup", root, "--repo", repo, "--init"])
        #expect(backup.status == 1)
        #expect(backup.standardError.contains("the backup repository's passphrase"), "\(backup.standardError)")
        #expect(backup.standardError.contains("--repo-key-file FILE or STRATA_BACKUP_PASSPHRASE"))
        #expect(!backup.standardError.contains("keyring") && !backup.standardError.contains("secrets"))

        let made = try strata(
            ["backup", root, "--repo", repo, "--init"], environment: ["STRATA_BACKUP_PASSPHRASE": "pw"])
        try #require(made.status == 0, "\(made.standardError)")
        let add = try strata(["key", "add", "--repo", repo], environment: ["STRATA_BACKUP_PASSPHRASE": "pw"])
        #expect(add.status == 1)
        #expect(add.standardError.contains("the backup repository's new passphrase"), "\(add.standardError)")
        #expect(add.standardError.contains("--new-key-file FILE or STRATA_BACKUP_NEW_PASSPHRASE"))
    }
}
