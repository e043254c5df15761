import Foundation
import StrataTestSupport
import Testing

/// `strata secrets rotate` (issue 17 item 2): a new data key, every item re-sealed, with the passphrase or key
/// that unlocked the keyring.
@Suite("strata CLI: secrets rotate")
struct SecretsRotateCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var keyring: String { root + "/secrets/default" }

    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-rotate") }

    func strata(_ arguments: [String], environment: [String: String], input: Data? = nil) throws
        -> ChildProcess.Result
    {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "", "STRATA_SECRETS_KEY": ""].merging(environment) {
                $1
            }, input: input, timeout: 30)
    }

    func itemFiles() throws -> [Data] {
        try FileManager.default.contentsOfDirectory(atPath: keyring).filter { $0.hasSuffix(".item") }.sorted()
            .map { try Data(contentsOf: URL(fileURLWithPath: keyring + "/" + $0)) }
    }

    @Test(arguments: [
        ["STRATA_PASSPHRASE": "pw"],
        ["STRATA_SECRETS_KEY": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"],
    ])
    func rotateResealsEveryItemWithTheKeyThatUnlocked(_ environment: [String: String]) throws {
        for account in ["a", "b", "c"] {
            let set = try strata(
                ["secrets", "set", "s", account, "--root", root, "--create"], environment: environment,
                input: Data("v-\(account)".utf8))
            #expect(set.status == 0, "\(set.standardError)")
        }
        let keyringFile = try Data(contentsOf: URL(fileURLWithPath: keyring + "/keyring.json"))
        let before = try itemFiles()
        let rotated = try strata(["secrets", "rotate", "--root", root], environment: environment)
        #expect(rotated.status == 0, "\(rotated.standardError)")
        #expect(rotated.standardOutput == "data key rotated; 3 item(s) re-sealed\n")
        #expect(try itemFiles().allSatisfy { !before.contains($0) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyring + "/keyring.json")) != keyringFile)
        let shown = try strata(["secrets", "get", "s", "b", "--root", root, "--show"], environment: environment)
        #expect(shown.standardOutput == "v-b\n", "\(shown.standardError)")
    }

    @Test func rotateWithAWrongPassphraseChangesNothing() throws {
        #expect(
            try strata(
                ["secrets", "set", "s", "a", "--root", root, "--create"], environment: ["STRATA_PASSPHRASE": "pw"],
                input: Data("v".utf8)
            )
            .status == 0)
        let before = try itemFiles()
        let refused = try strata(["secrets", "rotate", "--root", root], environment: ["STRATA_PASSPHRASE": "wrong"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("authentication-failed"), "\(refused.standardError)")
        #expect(try itemFiles() == before)
    }
}
