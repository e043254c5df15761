import Foundation
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strata secrets` as people and programs use it (issue 17): read-only verbs, a lost keyring file, the terminal
/// (two prompts, Ctrl-C), files that could block, and the keyrings `Storage` makes.
@Suite("strata CLI: secrets")
struct SecretsCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var keyring: String { root + "/secrets/default" }
    static let keyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-secrets") }

    func strata(_ arguments: [String], environment: [String: String] = ["STRATA_PASSPHRASE": "pw"], input: Data? = nil)
        throws -> ChildProcess.Result
    {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "", "STRATA_SECRETS_KEY": ""].merging(environment) {
                $1
            }, input: input, timeout: 30)
    }

    /// Runs `strata` on a pseudo-terminal, typing each response after the next prompt (a line ending in ": ").
    func onTerminal(_ responses: [String], _ arguments: [String]) throws -> PseudoTerminal.Outcome {
        try PseudoTerminal.run(
            try TestExecutables.url(named: "strata"), arguments, steps: responses.map { .type($0) },
            environment: ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "", "STRATA_SECRETS_KEY": ""], in: directory,
            timeout: 60)
    }

    func privateFile(_ name: String, _ content: String, mode: mode_t = 0o600) throws -> String {
        let path = directory.appending(name)
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    @Test func readOnlyVerbsNeverCreateAKeyring() throws {
        #expect(
            try strata(["secrets", "set", "s", "a", "--root", root, "--create"], input: Data("v".utf8)).status == 0)
        for verb in [["list"], ["get", "s", "a"], ["delete", "s", "a"], ["passwd"]] {
            let result = try strata(["secrets"] + verb + ["--root", root, "--keyring", "defualt"])
            #expect(result.status == 1, "\(verb)")
            #expect(result.standardError.contains("not-found"), "\(verb): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: root + "/secrets/defualt"), "\(verb)")
        }
    }

    @Test func aLostKeyringFileIsReportedNeverReplaced() throws {
        #expect(
            try strata(["secrets", "set", "s", "a", "--root", root, "--create"], input: Data("v".utf8)).status == 0)
        try FileManager.default.removeItem(atPath: keyring + "/keyring.json")
        for arguments in [["get", "s", "a"], ["list"], ["set", "s", "b"]] {
            let result = try strata(
                ["secrets"] + arguments + ["--root", root], environment: ["STRATA_PASSPHRASE": "totally-wrong"],
                input: Data("w".utf8))
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError.contains("corrupt"), "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(".item"), "the error names the item files")
            #expect(!FileManager.default.fileExists(atPath: keyring + "/keyring.json"), "\(arguments)")
        }
    }

    @Test func aNewKeyringAndPasswdAskTwiceOnATerminal() throws {
        let value = try privateFile("value", "v")
        let differ = try onTerminal(
            ["pw\n", "px\n"], ["secrets", "set", "s", "a", "--root", root, "--create", "--value-file", value])
        #expect(differ.status == 1)
        #expect(differ.output.contains("differ"), "\(differ.output)")
        #expect(!FileManager.default.fileExists(atPath: keyring + "/keyring.json"))
        let made = try onTerminal(
            ["pw\n", "pw\n"], ["secrets", "set", "s", "a", "--root", root, "--create", "--value-file", value])
        #expect(made.status == 0, "\(made.output)")
        #expect(made.output.contains("Repeat"))
        let passwd = try onTerminal(["pw\n", "new\n", "new\n"], ["secrets", "passwd", "--root", root])
        #expect(passwd.status == 0, "\(passwd.output)")
        let mistyped = try onTerminal(["new\n", "newer\n", "newest\n"], ["secrets", "passwd", "--root", root])
        #expect(mistyped.status == 1)
        #expect(try strata(["secrets", "list", "--root", root], environment: ["STRATA_PASSPHRASE": "new"]).status == 0)
    }

    @Test func ctrlCAtThePassphrasePromptRestoresEcho() throws {
        #expect(
            try strata(["secrets", "set", "s", "a", "--root", root, "--create"], input: Data("v".utf8)).status == 0)
        let interrupted = try onTerminal(["\u{3}"], ["secrets", "list", "--root", root])
        #expect(interrupted.signal == Int(SIGINT), "\(interrupted)")
        #expect(interrupted.echoAfter, "the terminal has echo back")
    }

    @Test func fifoKeyAndPassphraseFilesAreRefusedNotWaitedOn() throws {
        let fifo = directory.appending("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try TestExecutables.url(named: "strata-test-child")
        // Before the fix, opening the FIFO waited for a writer forever: the timeout ends the test then.
        let library = try ChildProcess.run(child, ["secrets-unlock-key-file", root, fifo], timeout: 20)
        #expect(library.standardOutput == "error invalid-argument\n", "\(library.standardError)")
        #expect(!FileManager.default.fileExists(atPath: keyring), "a failed creation creates nothing")
        let key = try privateFile("key", Self.keyHex)
        #expect(
            try strata(
                ["secrets", "set", "s", "a", "--root", root, "--create", "--key-file", key], input: Data("v".utf8)
            ).status
                == 0)
        let cli = try strata(["secrets", "list", "--root", root, "--key-file", fifo])
        #expect(cli.status == 1)
        #expect(cli.standardError.contains("not a regular file"), "\(cli.standardError)")
        let passphrase = try strata(["secrets", "list", "--root", root, "--passphrase-file", fifo])
        #expect(passphrase.status == 1)
        #expect(passphrase.standardError.contains("not a regular file"), "\(passphrase.standardError)")
    }

    @Test func aPassphraseFileIsCheckedLikeAKeyFile() throws {
        let open = try privateFile("open", "pw\n", mode: 0o644)
        let refused = try strata(
            ["secrets", "set", "s", "a", "--root", root, "--create", "--passphrase-file", open], input: Data())
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("unsafe-permissions"), "\(refused.standardError)")
        #expect(refused.standardError.contains("chmod 600"))
        let link = directory.appending("link")
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: try privateFile("private", "pw\n"))
        let linked = try strata(
            ["secrets", "set", "s", "a", "--root", root, "--create", "--passphrase-file", link], input: Data())
        #expect(linked.standardError.contains("symbolic-link"), "\(linked.standardError)")
    }

    @Test func theToolOpensTheKeyringStorageMade() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let stored = try ChildProcess.run(
            child, ["storage-secret-put", root, "api-token", "tok_123"],
            environment: ["STRATA_SECRETS_KEY": Self.keyHex])
        try #require(stored.standardOutput == "stored\n", "\(stored.standardError)")
        let get = ["secrets", "get", "strata.storage", "api-token", "--root", root, "--show"]
        let fromEnvironment = try strata(get, environment: ["STRATA_SECRETS_KEY": Self.keyHex])
        #expect(fromEnvironment.standardOutput == "tok_123\n", "\(fromEnvironment.standardError)")
        let fromFile = try strata(get + ["--key-file", try privateFile("key", Self.keyHex + "\n")])
        #expect(fromFile.standardOutput == "tok_123\n", "\(fromFile.standardError)")
        let withPassphrase = try strata(get)
        #expect(withPassphrase.status == 1)
        #expect(withPassphrase.standardError.contains("--secrets-key-file"), "\(withPassphrase.standardError)")
    }
}
