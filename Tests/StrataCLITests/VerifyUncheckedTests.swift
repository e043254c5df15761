import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata verify` never calls a partly checked store sound: a keyring whose items could not be opened (no key given)
/// is listed as unchecked, in text and JSON, and fails the verify unless `--allow-unchecked`; `--key-file` opens a
/// keyring protected by a key, as the secrets verbs do.
@Suite("strata verify: what was not checked")
struct VerifyUncheckedTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var keyFile: String { directory.appending("secrets.key") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-verify-unchecked")
        let key = Data(repeating: 0xA5, count: 32)
        #expect(FileManager.default.createFile(atPath: keyFile, contents: key, attributes: [.posixPermissions: 0o600]))
        let storage = try Storage(root: root, secretsKey: .keyFile(keyFile))
        try storage.set(Secret("tok"), for: "api/token")
        try storage.set("dark", for: "theme")
    }

    func verify(_ extra: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), ["verify", root] + extra,
            environment: ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "", "STRATA_SECRETS_KEY": ""].merging(environment) {
                $1
            })
    }

    @Test func aKeyringWithoutItsKeyIsUncheckedAndFails() throws {
        let result = try verify([])
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("unchecked: secrets/default: its items were not opened"))
        #expect(result.standardOutput.contains("unchecked: catalog: keys in secrets"), "\(result.standardOutput)")
        #expect(result.standardError.contains("locked") && result.standardError.contains("--allow-unchecked"))
        let json = try verify(["--json"])
        #expect(json.status == 1)
        #expect(
            json.standardOutput.contains(#""ok":false"#) && json.standardOutput.contains(#""unchecked":["secrets/"#))
        #expect(try verify(["--allow-unchecked"]).status == 0)
    }

    @Test func theKeyFileOrTheEnvironmentOpensEveryItem() throws {
        for result in [
            try verify(["--key-file", keyFile]),
            try verify([], environment: ["STRATA_SECRETS_KEY": String(repeating: "a5", count: 32)]),
        ] {
            #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput == "ok: every tier of \(root) is sound\n", "\(result.standardOutput)")
        }
        let wrong = directory.appending("wrong.key")
        #expect(
            FileManager.default.createFile(
                atPath: wrong, contents: Data(repeating: 1, count: 32), attributes: [.posixPermissions: 0o600]))
        let refused = try verify(["--key-file", wrong])
        #expect(refused.status == 1 && refused.standardOutput.contains("authentication-failed"))
        #expect(try verify(["--key-file", keyFile, "--passphrase-file", keyFile]).status == 2)
    }
}
