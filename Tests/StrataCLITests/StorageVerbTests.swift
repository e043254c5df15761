import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// The engine's own verbs (`put`, `get`, `where`, `ls`, `mv`, `rm`) and the tier verbs keeping the catalog true, run
/// as the real binary.
@Suite("strata CLI: the engine's verbs and the catalog")
struct StorageVerbTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    static let secretsKeyHex = String(repeating: "5a", count: 32)
    static let secretsKey = KeyProvider.inMemory(Secret(Data(repeating: 0x5a, count: 32)))
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-storage") }

    /// Runs the tool; with `secretsKey`, the tests' key is in `STRATA_SECRETS_KEY` (the demo's keyring is protected
    /// by a passphrase instead).
    func strata(_ arguments: [String], input: Data? = nil, secretsKey: Bool = true) throws -> ChildProcess.Result {
        var environment = ["STRATA_ROOT": "", "STRATA_PASSPHRASE": ""]
        if secretsKey { environment["STRATA_SECRETS_KEY"] = Self.secretsKeyHex }
        return try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments, environment: environment, input: input)
    }

    func succeeds(_ arguments: [String], input: Data? = nil, secretsKey: Bool = true) throws -> ChildProcess.Result {
        let result = try strata(arguments, input: input, secretsKey: secretsKey)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return result
    }

    static func json(_ text: String) throws -> JSONValue {
        try Data(text.utf8).withUnsafeBytes { try JSONValue.parse($0) }
    }

    @Test func putGetWhereListMoveAndRemove() throws {
        let pdf = directory.appending("report.pdf")
        try Data("%PDF-1.7\n%%EOF\n".utf8).write(to: URL(fileURLWithPath: pdf))
        let put = try succeeds([
            "put", "exports/report.pdf", pdf, "--kind", "file", "--content-type", "application/pdf", "--root", root,
            "--create",
        ])
        #expect(put.standardOutput.hasPrefix("exports/report.pdf -> files (file-to-files): "), "\(put.standardOutput)")
        _ = try succeeds(["put", "theme", "-", "--kind", "preference", "--root", root], input: Data("dark".utf8))
        let token = try succeeds(
            ["put", "api/token", "--kind", "credential", "--root", root, "--json"], input: Data("tok_live".utf8))
        guard case .object(let made) = try Self.json(token.standardOutput) else {
            Issue.record("not a JSON object: \(token.standardOutput)")
            return
        }
        #expect(made["tier"] == .string("secrets") && made["rule"] == .string("sensitive-to-secrets"))
        #expect(try succeeds(["get", "theme", "--root", root]).standardOutput == "dark")
        let output = directory.appending("copy.pdf")
        _ = try succeeds(["get", "exports/report.pdf", "--root", root, "--output", output])
        #expect(FileManager.default.contents(atPath: output) == Data("%PDF-1.7\n%%EOF\n".utf8))
        let whereText = try succeeds(["where", "api/token", "--root", root]).standardOutput
        #expect(
            whereText.hasPrefix("api/token\tsecrets\tsodium\tsensitive-to-secrets\tcredential\t8\t"), "\(whereText)")
        guard
            case .object(let location) = try Self.json(
                try succeeds(["where", "theme", "--root", root, "--json"])
                    .standardOutput)
        else { return }
        #expect(location["tier"] == .string("defaults") && location["kind"] == .string("preference"))
        #expect(location["size"] == .integer(4) && location["contentType"] == .null)
        #expect(
            try succeeds(["ls", "--root", root]).standardOutput == "api/token\nexports/report.pdf\ntheme\n")
        #expect(try succeeds(["ls", "exports/", "--root", root]).standardOutput == "exports/report.pdf\n")
        let long = try succeeds(["ls", "--root", root, "--long"]).standardOutput.split(separator: "\n")
        #expect(
            long.count == 3 && long[1].hasPrefix("exports/report.pdf\tfiles\tfilesystem\tfile-to-files\tfile\t15\t"))
        #expect(try succeeds(["ls", "--root", root, "--json"]).standardOutput.contains(#"{"key":"theme"}"#))
        let moved = try succeeds(["mv", "theme", "records", "--root", root])
        #expect(
            moved.standardOutput.hasPrefix("theme\trecords\tsqlite\tmove\tpreference\t4\t"), "\(moved.standardOutput)")
        #expect(try Storage(root: root, secretsKey: Self.secretsKey).location(of: "theme")?.tier == .records)
        _ = try succeeds(["rm", "theme", "--root", root])
        let gone = try strata(["get", "theme", "--root", root])
        #expect(gone.status == 1 && gone.standardError.contains("not-found"))
        #expect(try strata(["rm", "theme", "--root", root]).status == 1)
        #expect(try strata(["where", "theme", "--root", root]).status == 1)
        // Mistakes are usage errors.
        #expect(try strata(["put", "x", "--root", root], input: Data()).status == 2)
        #expect(try strata(["put", "x", "--kind", "blob", "--root", root], input: Data()).status == 2)
        #expect(try strata(["mv", "api/token", "nowhere", "--root", root]).status == 2)
        #expect(try strata(["get", "theme"]).status == 2)
    }

    /// A credential put through the tool stays in secrets unless `--allow-plaintext` says otherwise.
    @Test func aCredentialLeavesSecretsOnlyWhenAllowed() throws {
        _ = try succeeds(
            ["put", "session/rt", "--kind", "credential", "--root", root, "--create"], input: Data("rt".utf8))
        let refused = try strata(["mv", "session/rt", "defaults", "--root", root])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("wrong-tier"), "\(refused.standardError)")
        let replaced = try strata(["put", "session/rt", "--kind", "preference", "--root", root], input: Data("x".utf8))
        #expect(replaced.status == 1 && replaced.standardError.contains("wrong-tier"))
        #expect(try succeeds(["get", "session/rt", "--root", root]).standardOutput == "rt")
        _ = try succeeds(["mv", "session/rt", "defaults", "--root", root, "--allow-plaintext"])
        #expect(try Storage(root: root, secretsKey: Self.secretsKey).location(of: "session/rt")?.tier == .defaults)
    }

    /// `files rm` removes the key's placement, and `defaults set` of a key the catalog places in files is refused:
    /// the tier verbs keep the catalog true (the issue's cases 1 and 3).
    @Test func tierVerbsKeepTheCatalogTrue() throws {
        let storage = try Storage(root: root, secretsKey: Self.secretsKey)
        try storage.put(
            Data(repeating: 0x7B, count: 3 << 20), for: "cachedFeed",
            as: DataDescriptor(kind: .preference, estimatedSize: 3 << 20))
        try storage.put(Data("pdf".utf8), for: "exports/a.pdf", as: DataDescriptor(kind: .file, estimatedSize: 3))
        let refused = try strata(["defaults", "set", "cachedFeed", "xyz", "--root", root])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("conflict") && refused.standardError.contains("keeps this key in files"))
        #expect(try tiersHolding(["cachedFeed"], storage) == [.files])
        _ = try succeeds(["files", "rm", "exports/a.pdf", "--root", root])
        #expect(try storage.catalog.location(of: "exports/a.pdf") == nil)
        #expect(try strata(["where", "exports/a.pdf", "--root", root]).status == 1)
        #expect(try !storage.contains("exports/a.pdf"))
    }

    /// The tiers that hold `keys[0]`, asked of each backend.
    func tiersHolding(_ keys: [String], _ storage: Storage) throws -> [Tier] {
        try Tier.allCases.filter { try storage.backend(for: $0).contains(keys[0]) }
    }

    /// The issue's case 2: the demo store, a file removed through the tool, a backup, and the restore succeeds; a
    /// file removed outside Strata is left out of the snapshot and reported, and the restore holds the rest.
    @Test func aBackupAfterARemovalRestores() throws {
        #expect(try strata(["demo", "--root", root], secretsKey: false).status == 0)
        _ = try succeeds(["files", "rm", "exports/report.pdf", "--root", root], secretsKey: false)
        try OutsideHands.removeFile("recordings/memo.wav", root: root)
        let keyFile = directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        let repo = directory.appending("repo")
        let backup = try succeeds(
            ["backup", root, "--repo", repo, "--init", "--key-file", keyFile, "--json"], secretsKey: false)
        guard case .object(let made) = try Self.json(backup.standardOutput), case .string(let id) = made["id"] else {
            Issue.record("not a snapshot: \(backup.standardOutput)")
            return
        }
        #expect(made["missing"] == .integer(1))
        #expect(made["missingKeys"] == .array([.string("recordings/memo.wav")]))
        let target = directory.appending("restored")
        let restored = try succeeds(
            ["restore", id, "--repo", repo, "--repo-key-file", keyFile, "--root", target], secretsKey: false)
        // The restore holds every other key, and says which the snapshot lacks.
        #expect(
            restored.standardOutput.contains("; 1 missing\nmissing: recordings/memo.wav: "),
            "\(restored.standardOutput)")
        let keys = try succeeds(["ls", "--root", target], secretsKey: false).standardOutput
        #expect(
            !keys.contains("exports/report.pdf") && !keys.contains("recordings/memo.wav")
                && keys.contains("selectedTheme"))
    }
}
