import Foundation
import Strata
import StrataSystem
import StrataTestSupport
import Testing

/// Every file option of every verb, with every shape of path a user types: a one-character name, `./`, `../`, an
/// absolute path, a subfolder, a name with spaces, and a trailing slash (a folder, refused with a typed error). None
/// may crash the tool (one-character names trapped in Foundation's path methods: exit 132), and each path names the
/// file it says, relative to the working directory.
@Suite("strata CLI: file options take every path")
struct FileOptionPathTests {
    let directory: TemporaryDirectory
    /// The working directory of every run: `directory/work`, so that `../` stays inside `directory`.
    var work: String { directory.appending("work") }
    var store: String { work + "/s" }

    static let names = ["k", "./k", "../k", "ABSOLUTE/k", "d/k", "with space", "k/"]

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-paths")
        try FileManager.default.createDirectory(atPath: work + "/d", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.appending("abs"), withIntermediateDirectories: true)
        let storage = try Storage(root: store, secretsKey: .inMemory(Secret(Data(repeating: 0xA5, count: 32))))
        try storage.files.write(Data("a file".utf8), to: "a.txt")
        try storage.set("dark", for: "theme")
        try storage.defaults.flush()
        try storage.records.collection(Counter.self, named: "people").insert(Counter(id: "1", value: 1))
    }

    /// `name` as the run spells it (`ABSOLUTE` stands for an absolute folder in the test's directory).
    func spelled(_ name: String, suffix: String = "") -> String {
        let base = name.hasSuffix("/") ? String(name.dropLast()) + suffix + "/" : name + suffix
        return base.replacingOccurrences(of: "ABSOLUTE", with: directory.appending("abs"))
    }

    /// Where `spelled` leads, as an absolute path.
    func resolved(_ spelled: String) -> String {
        LocalPath(spelled.hasPrefix("/") ? spelled : work + "/" + spelled).normalized
    }

    func strata(_ arguments: [String], input: Data? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "cd '\(work)' && exec \"$0\" \"$@\"", try TestExecutables.url(named: "strata").path] + arguments,
            environment: [
                "STRATA_ROOT": "", "STRATA_PASSPHRASE": "", "STRATA_BACKUP_PASSPHRASE": "",
                "STRATA_SECRETS_KEY": String(repeating: "a5", count: 32),
            ], input: input)
    }

    /// A run that must not crash: it writes or reads the file `spelled` names, or (for a trailing slash) fails with a
    /// typed error.
    func expectHandled(_ result: ChildProcess.Result, _ spelled: String, _ what: String) {
        #expect(!result.wasSignalled && [0, 1, 2].contains(result.status), "\(what) \(spelled): \(result.status)")
        if spelled.hasSuffix("/") {
            #expect([1, 2].contains(result.status), "\(what) \(spelled) accepted a folder as a file")
        } else {
            #expect(result.status == 0, "\(what) \(spelled): \(result.standardError)")
        }
    }

    @Test(arguments: names) func outputFiles(_ name: String) throws {
        let outputs: [(String, [String], String)] = [
            ("files get", ["files", "get", "a.txt", "--root", "s", "--output"], ""),
            ("files export", ["files", "export", "a.txt", "--root", "s", "--output"], ".gz"),
            ("defaults export", ["defaults", "export", "--binary", "--root", "s", "--output"], ""),
            ("records export", ["records", "export", "people", "--root", "s", "--output"], ""),
            ("get", ["get", "a.txt", "--root", "s", "--output"], ""),
        ]
        for (what, arguments, suffix) in outputs {
            let path = spelled(name, suffix: suffix)
            try? FileManager.default.removeItem(atPath: resolved(path))
            let result = try strata(arguments + [path])
            expectHandled(result, path, what)
            if !path.hasSuffix("/") {
                #expect(FileManager.default.fileExists(atPath: resolved(path)), "\(what) wrote no \(resolved(path))")
            }
        }
    }

    @Test(arguments: names) func inputFiles(_ name: String) throws {
        let path = spelled(name)
        if !path.hasSuffix("/") {
            try Data("s3cr3t".utf8).write(to: URL(fileURLWithPath: resolved(path)))
        }
        let inputs: [(String, [String])] = [
            ("files put", ["files", "put", "copied.txt", path, "--root", "s"]),
            ("put", ["put", "copied", path, "--kind", "file", "--root", "s"]),
            (
                "secrets set",
                ["secrets", "set", "svc", "acct", "--value-file", path, "--root", "s", "--key-file", "key"]
            ),
        ]
        try Data(repeating: 0xA5, count: 32).write(to: URL(fileURLWithPath: work + "/key"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: work + "/key")
        for (what, arguments) in inputs {
            expectHandled(try strata(arguments), path, what)
        }
    }

    @Test(arguments: names) func keyFiles(_ name: String) throws {
        let path = spelled(name, suffix: ".key")
        if !path.hasSuffix("/") {
            try? FileManager.default.removeItem(atPath: resolved(path))
            try RepositoryKey.createKeyFile(at: resolved(path))
        }
        let repo = "repo-" + String(UInt32.random(in: 0...UInt32.max))
        expectHandled(try strata(["backup", "s", "--repo", repo, "--init", "--key-file", path]), path, "backup --init")
        let snapshots = try strata(["snapshots", "--repo", repo, "--key-file", path])
        expectHandled(snapshots, path, "snapshots")
        // A new key file made by `key add`, beside the one that opens the repository.
        let made = spelled(name, suffix: ".new")
        try? FileManager.default.removeItem(atPath: resolved(made))
        if !path.hasSuffix("/") {
            let added = try strata([
                "key", "add", "--repo", repo, "--key-file", path, "--new-key-file", made, "--create-key-file",
            ])
            expectHandled(added, made, "key add")
        }
    }
}
