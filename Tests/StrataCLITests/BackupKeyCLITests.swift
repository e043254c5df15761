import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strata key list|add|remove|passwd`, run as the real binary, and a `passwd` killed with SIGKILL between its two
/// steps: the repository always opens with the new key, and with the old one until the old slot is gone.
@Suite("strata CLI: backup repository keys")
struct BackupKeyCLITests {
    let directory: TemporaryDirectory
    var repo: String { directory.appending("repo") }
    var keyFile: String { directory.appending("repo.key") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-key")
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
        _ = try BackupRepository.create(at: directory.appending("repo"), key: .keyFile(directory.appending("repo.key")))
    }

    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments + ["--repo", repo],
            environment: ["STRATA_BACKUP_PASSPHRASE": "", "STRATA_BACKUP_NEW_PASSPHRASE": ""].merging(environment) {
                $1
            })
    }

    /// Whether `snapshots` succeeds with this key file, or with this passphrase.
    func opens(keyFile file: String? = nil, passphrase: String? = nil) throws -> Bool {
        let result = try strata(
            ["snapshots"] + (file.map { ["--key-file", $0] } ?? []),
            environment: passphrase.map { ["STRATA_BACKUP_PASSPHRASE": $0] } ?? [:])
        return result.status == 0
    }

    func slots(_ arguments: [String] = []) throws -> [JSONValue] {
        let result = try strata(["key", "list", "--json"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        guard case .array(let items) = try Data(result.standardOutput.utf8).withUnsafeBytes({ try JSONValue.parse($0) })
        else { return [] }
        return items
    }

    @Test func addListPasswdAndRemove() throws {
        let second = directory.appending("second.key")
        let added = try strata(
            ["key", "add", "--key-file", keyFile, "--new-key-file", second, "--create-key-file"])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.hasPrefix("key slot "), "\(added.standardOutput)")
        #expect(try opens(keyFile: second))
        let listed = try slots(["--key-file", keyFile])
        #expect(listed.count == 2)
        #expect(listed.filter { $0["current"] == .bool(true) }.count == 1)
        #expect(listed.allSatisfy { $0["kind"] == .string("key-file") })
        let table = try strata(["key", "list", "--key-file", keyFile]).standardOutput
        #expect(table.split(separator: "\n").count == 2 && table.hasPrefix("*") == (table.first == "*"), "\(table)")

        // Opened with the second key file, replace it by a passphrase.
        let changed = try strata(
            ["key", "passwd", "--key-file", second], environment: ["STRATA_BACKUP_NEW_PASSPHRASE": "new words"])
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(!(try opens(keyFile: second)))
        let refused = try strata(["snapshots", "--key-file", second])
        #expect(refused.standardError.contains("authentication-failed"), "\(refused.standardError)")
        #expect(try opens(passphrase: "new words"))
        #expect(try opens(keyFile: keyFile))

        // The slot a command is opened with cannot be removed by it; another can.
        let mine = try slots(["--key-file", keyFile]).first { $0["current"] == .bool(true) }
        guard case .string(let mineID)? = mine?["id"] else {
            Issue.record("no current slot")
            return
        }
        let own = try strata(["key", "remove", String(mineID.prefix(12)), "--key-file", keyFile])
        #expect(own.status == 1)
        #expect(own.standardError.contains("invalid-argument"), "\(own.standardError)")
        let removed = try strata(
            ["key", "remove", String(mineID.prefix(12))], environment: ["STRATA_BACKUP_PASSPHRASE": "new words"])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(!(try opens(keyFile: keyFile)))
        #expect(try opens(passphrase: "new words"))
    }

    @Test func mistakesAreUsageErrors() throws {
        let noFile = try strata(["key", "add", "--key-file", keyFile, "--create-key-file"])
        #expect(noFile.status == 2, "\(noFile.standardError)")
        let noSlot = try strata(["key", "remove", "--key-file", keyFile])
        #expect(noSlot.status == 2)
        let unknown = try strata(["key", "remove", "ffff", "--key-file", keyFile])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("not-found"), "\(unknown.standardError)")
        #expect(try slots(["--key-file", keyFile]).count == 1)
    }

    /// Killed before the old slot's `unlink` (the new slot durable), or after it, before the keys folder's last
    /// flush: the new key always opens, the old one until its slot is unlinked.
    @Test(arguments: [true, false])
    func passwdKilledKeepsAWorkingKey(beforeUnlink: Bool) throws {
        let passwd = ["key", "passwd", "--key-file", keyFile]
        let newPassphrase = ["STRATA_BACKUP_NEW_PASSPHRASE": "new words"]
        let kill = FaultKill([beforeUnlink ? "unlink" : "fsync"], on: repo + "/keys")
        var point = 1
        if !beforeUnlink {
            // The last flush, counted on a run of its own; then the repository is put back as it was.
            let pristine = directory.appending("pristine")
            try FileManager.default.copyItem(atPath: repo, toPath: pristine)
            let counted = try strata(passwd, environment: newPassphrase.merging(kill.environment(at: 0)) { $1 })
            point = try #require(FaultKill.matchedCalls(in: counted.standardError))
            try FileManager.default.removeItem(atPath: repo)
            try FileManager.default.moveItem(atPath: pristine, toPath: repo)
        }
        let result = try strata(passwd, environment: newPassphrase.merging(kill.environment(at: point)) { $1 })
        #expect(result.wasSignalled && result.status == SIGKILL, "\(result.standardError)")
        let call = FaultKill.killedCall(in: result.standardError) ?? ""
        #expect(call.hasPrefix(beforeUnlink ? "unlink of \(repo)/keys/" : "fsync of \(repo)/keys"), "\(call)")
        #expect(try opens(passphrase: "new words"))
        #expect(try opens(keyFile: keyFile) == beforeUnlink)
    }
}
