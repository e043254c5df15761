import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// `strata init ROOT --shared …` on two roots (two machines of one service) over one PostgreSQL schema and one S3
/// prefix, then the engine's verbs (`put`, `get`, `where`, `ls`, `mv`, `rm`) on either: each root sees what the
/// other wrote last, as the real binary.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "").isEmpty
            && !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_S3_URL and STRATA_POSTGRES_URL (Scripts/test.sh starts both)"))
final class SharedStoreCLITests: Sendable {
    let directory: TemporaryDirectory
    /// The gateway stays up for each test: the `strata` processes' clients retry a few times only.
    let gateway = S3GatewayHold(.steady)
    /// The schema both roots keep their catalog and records in, dropped at the end.
    let postgres: PostgresConfiguration
    /// The connection string naming that schema, handed to the tool through ``recordsVariable``.
    let recordsURL: String
    static let recordsVariable = "STRATA_TEST_SHARED_RECORDS"

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-shared")
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        let schema = "cli_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        postgres = PostgresConfiguration(connectionString: server, schema: schema)
        recordsURL = server + (server.contains("?") ? "&" : "?") + "strata_schema=" + schema
    }

    deinit { _ = try? PostgresRecordEngine.dropStore(postgres) }

    func strata(_ arguments: [String], input: Data? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: [
                "STRATA_ROOT": "", "STRATA_FILES_URL": "", Self.recordsVariable: recordsURL,
                "STRATA_SECRETS_KEY": String(repeating: "5a", count: 32),
            ], input: input)
    }

    func succeeds(_ arguments: [String], input: Data? = nil) throws -> String {
        let result = try strata(arguments, input: input)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return result.standardOutput
    }

    func file(_ name: String, _ data: Data) throws -> String {
        let path = directory.appending(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func twoRootsInitializedSharedSeeEachOthersWrites() throws {
        let (a, b) = (directory.appending("a"), directory.appending("b"))
        let files = S3Gateway.freshLocation()
        for root in [a, b] {
            _ = try succeeds([
                "init", root, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url", files,
            ])
            let conf = try String(contentsOfFile: root + "/strata.conf", encoding: .utf8)
            #expect(conf.contains("[catalog]\nshared = true"), "\(conf)")
            #expect(!conf.contains("postgresql://"), "the connection string stays in the environment")
            #expect(conf.contains("[defaults]\nbackend = postgres"), "\(conf)")
        }
        // A puts a 2 MiB file; B reads it.
        let document = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        _ = try succeeds(["put", "doc", try file("doc.bin", document), "--kind", "file", "--root", a])
        _ = try succeeds(["get", "doc", "--root", b, "--output", directory.appending("b-doc")])
        #expect(read(directory.appending("b-doc")) == document)
        // A makes it a small record (a move files → records); B reads the record and places it there.
        let row = Data(#"{"title":"a row"}"#.utf8)
        _ = try succeeds(["put", "doc", "-", "--kind", "relational", "--root", a], input: row)
        #expect(try succeeds(["get", "doc", "--root", b]) == String(decoding: row, as: UTF8.self))
        #expect(try succeeds(["where", "doc", "--root", b]).hasPrefix("doc\trecords\tpostgres\t"))
        // B makes it a 3 MiB file again; A reads that, and the record is gone.
        let large = Data(repeating: 0x42, count: 3 << 20)
        _ = try succeeds(["put", "doc", try file("large.bin", large), "--kind", "file", "--root", b])
        _ = try succeeds(["get", "doc", "--root", a, "--output", directory.appending("a-doc")])
        #expect(read(directory.appending("a-doc")) == large)
        #expect(try succeeds(["where", "doc", "--root", a]).hasPrefix("doc\tfiles\ts3\t"))
        // A moves a record to files; B finds it there.
        _ = try succeeds(["put", "note", "-", "--kind", "relational", "--root", a], input: Data("{}".utf8))
        _ = try succeeds(["mv", "note", "files", "--root", a])
        #expect(try succeeds(["where", "note", "--root", b]).hasPrefix("note\tfiles\ts3\t"))
        #expect(try succeeds(["ls", "--root", b]) == "doc\nnote\n")
        // B removes the file; A finds nothing.
        _ = try succeeds(["rm", "doc", "--root", b])
        #expect(try strata(["get", "doc", "--root", a]).status == 1)
        #expect(try succeeds(["ls", "--root", a]) == "note\n")
        _ = try succeeds(["verify", "--root", a])
        // A preference is in the shared suite on the server, a credential in the keyring there (sealed with the
        // key both machines are given).
        _ = try succeeds(["put", "theme", "-", "--kind", "preference", "--root", a], input: Data("dark".utf8))
        #expect(try succeeds(["get", "theme", "--root", b]) == "dark")
        #expect(try succeeds(["where", "theme", "--root", b]).hasPrefix("theme\tdefaults\tpostgres\t"))
        _ = try succeeds(["put", "api/token", "-", "--kind", "credential", "--root", a], input: Data("tok_1".utf8))
        #expect(try succeeds(["get", "api/token", "--root", b]) == "tok_1")
        #expect(try succeeds(["where", "api/token", "--root", b]).hasPrefix("api/token\tsecrets\tpostgres\t"))
        _ = try succeeds(["rm", "api/token", "--root", b])
        #expect(try strata(["get", "api/token", "--root", a]).status == 1)
        // The keyring verbs would open this machine's own keyring folder: refused, pointing at the store's verbs.
        let keyringVerb = try strata(["secrets", "list", "--root", a])
        #expect(
            keyringVerb.status == 1 && keyringVerb.standardError.contains("no-backend"), "\(keyringVerb.standardError)")
        // The suite verbs would read this machine's own suite file: refused, pointing at the store's verbs.
        let suiteVerb = try strata(["defaults", "get", "theme", "--root", b])
        #expect(suiteVerb.status == 1 && suiteVerb.standardError.contains("no-backend"), "\(suiteVerb.standardError)")
        #expect(suiteVerb.standardError.contains("strata get"), "\(suiteVerb.standardError)")
    }

    /// Four `strata` processes on two roots put preferences into the shared suite at once, past its budget: every
    /// put lands, in the suite while it has room and in files once it is full (the selector's rule), every one
    /// reads back from the other root, and the suite never grows over its budget (each set checks it under the
    /// suite's lock on the server, so writers on two machines cannot both take the last room).
    @Test func writersOnTwoRootsShareTheSuiteAndItsBudget() throws {
        let (a, b) = (directory.appending("a"), directory.appending("b"))
        let files = S3Gateway.freshLocation()
        for root in [a, b] {
            _ = try succeeds([
                "init", root, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url", files,
                "--defaults-suite-budget", "8KiB",
            ])
        }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { writer in
            for index in 0..<12 {
                let key = "w\(writer)/\(index)"
                do {
                    let run = try strata(
                        ["put", key, "-", "--kind", "preference", "--root", writer % 2 == 0 ? a : b],
                        input: Data(repeating: UInt8(ascii: "a") + UInt8(writer), count: 300))
                    if run.status != 0 { failures.withLock { $0.append("\(key): \(run.standardError)") } }
                } catch {
                    failures.withLock { $0.append("\(key): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let listing = try succeeds(["ls", "w", "--root", b, "--long"]).split(separator: "\n")
        #expect(listing.count == 48)
        let tiers = listing.map { $0.split(separator: "\t")[1] }
        let inDefaults = tiers.filter { $0 == "defaults" }.count
        #expect(inDefaults > 0 && tiers.contains("files"), "\(tiers)")
        // Each entry counts its key, its bookkeeping and its value's estimate: the suite stays within 8 KiB.
        #expect(inDefaults * (300 + 7 + 5) <= 8 << 10, "\(inDefaults) entries in the suite")
        for line in listing {
            let key = String(line.split(separator: "\t")[0])
            let writer = Int(key.dropFirst().prefix { $0 != "/" })!
            #expect(
                try succeeds(["get", key, "--root", a])
                    == String(repeating: Character(UnicodeScalar(97 + writer)!), count: 300))
        }
    }

    /// Four `strata` processes on two roots put credentials into the shared keyring at once, each a transaction under
    /// the keyring row's lock that commits the item with a new manifest: every put lands and reads back from the
    /// other root, none rolled back or lost.
    @Test func writersOnTwoRootsShareTheKeyring() throws {
        let (a, b) = (directory.appending("a"), directory.appending("b"))
        let files = S3Gateway.freshLocation()
        for root in [a, b] {
            _ = try succeeds([
                "init", root, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url", files,
            ])
        }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { writer in
            for index in 0..<6 {
                let key = "k\(writer)/\(index)"
                do {
                    let run = try strata(
                        ["put", key, "-", "--kind", "credential", "--root", writer % 2 == 0 ? a : b],
                        input: Data("secret-\(writer)-\(index)".utf8))
                    if run.status != 0 { failures.withLock { $0.append("\(key): \(run.standardError)") } }
                } catch {
                    failures.withLock { $0.append("\(key): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let listing = try succeeds(["ls", "k", "--root", a, "--long"]).split(separator: "\n")
        #expect(listing.count == 24 && listing.allSatisfy { $0.split(separator: "\t")[1] == "secrets" }, "\(listing)")
        for writer in 0..<4 {
            for index in 0..<6 {
                #expect(
                    try succeeds(["get", "k\(writer)/\(index)", "--root", writer % 2 == 0 ? b : a])
                        == "secret-\(writer)-\(index)")
            }
        }
        _ = try succeeds(["verify", "--root", b])
    }

    /// `strata migrate ROOT --to-shared SHARED` copies a one-machine store's keys into a shared store, one line per
    /// key; run again it writes nothing; a key the shared store holds with other bytes exits 1 naming it; a target
    /// that is not shared is refused.
    @Test func migrateCopiesALocalStoreIntoASharedOne() throws {
        let (local, a, b) = (directory.appending("local"), directory.appending("a"), directory.appending("b"))
        let files = S3Gateway.freshLocation()
        for root in [a, b] {
            _ = try succeeds([
                "init", root, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url", files,
            ])
        }
        _ = try succeeds(
            ["put", "row", "-", "--kind", "relational", "--root", local, "--create"], input: Data("{}".utf8))
        _ = try succeeds(["put", "pref", "-", "--kind", "preference", "--root", local], input: Data("on".utf8))
        _ = try succeeds(["put", "token", "-", "--kind", "credential", "--root", local], input: Data("t0k".utf8))
        let output = try succeeds(["migrate", local, "--to-shared", a])
        #expect(output.contains("copied\trow\n") && output.contains("copied\ttoken\n"), "\(output)")
        #expect(output.hasSuffix("3 copied, 0 already there, 0 conflicts; 3 verified\n"), "\(output)")
        #expect(try succeeds(["get", "token", "--root", b]) == "t0k")
        #expect(try succeeds(["where", "pref", "--root", b]).hasPrefix("pref\tdefaults\tpostgres\t"))
        #expect(try succeeds(["migrate", local, "--to-shared", a, "--json"]).contains(#""verified":3"#))
        _ = try succeeds(["put", "row", "-", "--kind", "relational", "--root", b], input: Data(#"{"b":1}"#.utf8))
        let conflict = try strata(["migrate", local, "--to-shared", a])
        #expect(conflict.status == 1 && conflict.standardError.contains("row"), "\(conflict.standardError)")
        #expect(try succeeds(["get", "row", "--root", a]) == #"{"b":1}"#)
        let notShared = try strata(["migrate", a, "--to-shared", local])
        #expect(notShared.status != 0 && notShared.standardError.contains("not a shared store"))
    }

    /// `--shared` on a root that holds a one-machine store's data is refused: the shared store would leave it
    /// behind, unseen; the root is left as it was.
    @Test func initSharedRefusesARootWithLocalData() throws {
        let root = directory.appending("local")
        _ = try succeeds(
            ["put", "row", "-", "--kind", "relational", "--root", root, "--create"], input: Data("{}".utf8))
        let before = read(root + "/strata.conf")
        let refused = try strata([
            "init", root, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url",
            S3Gateway.freshLocation(),
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("conflict"), "\(refused.standardError)")
        #expect(refused.standardError.contains("a catalog"), "\(refused.standardError)")
        #expect(read(root + "/strata.conf") == before)
        #expect(try succeeds(["get", "row", "--root", root]) == "{}")
    }

    /// `--shared` without a place every machine reaches for records or files writes nothing and says what to add.
    @Test func initSharedNeedsRecordsOnPostgresAndFilesOnS3() throws {
        let root = directory.appending("half")
        let noRecords = try strata(["init", root, "--shared", "--files-url", S3Gateway.freshLocation()])
        #expect(noRecords.status == 2)
        #expect(noRecords.standardError.contains("--records-url-variable"), "\(noRecords.standardError)")
        let noFiles = try strata(["init", root, "--shared", "--records-url-variable", Self.recordsVariable])
        #expect(noFiles.status == 2)
        #expect(noFiles.standardError.contains("--files-url"), "\(noFiles.standardError)")
        #expect(!FileManager.default.fileExists(atPath: root + "/strata.conf"))
    }

    /// A backup of a shared store restored into a new shared store with the tool: `strata init NEW --shared` names
    /// the new schema and prefix, `strata restore SNAPSHOT --root NEW --shared` loads the snapshot there, and a
    /// second root initialized the same way reads every key. Without the declaration, `--shared` is refused.
    @Test func aBackupRestoresIntoANewSharedStore() throws {
        let (a, restored, other) = (
            directory.appending("a"), directory.appending("new-a"), directory.appending("new-b")
        )
        _ = try succeeds([
            "init", a, "--shared", "--records-url-variable", Self.recordsVariable, "--files-url",
            S3Gateway.freshLocation(),
        ])
        _ = try succeeds(["put", "theme", "-", "--kind", "preference", "--root", a], input: Data("dark".utf8))
        _ = try succeeds(["put", "api/token", "-", "--kind", "credential", "--root", a], input: Data("tok".utf8))
        _ = try succeeds(["put", "row", "-", "--kind", "relational", "--root", a], input: Data(#"{"n":1}"#.utf8))
        let document = Data(repeating: 0x44, count: 2 << 20)
        _ = try succeeds(["put", "doc", try file("doc.bin", document), "--kind", "file", "--root", a])
        let (repo, key) = (directory.appending("repo"), directory.appending("repo.key"))
        try RepositoryKey.createKeyFile(at: key)
        _ = try succeeds(["backup", a, "--init", "--repo", repo, "--repo-key-file", key])
        let listed = try succeeds(["snapshots", "--json", "--repo", repo, "--repo-key-file", key])
        guard case .array(let snapshots) = try BackupCLITests.json(listed), case .object(let first)? = snapshots.first,
            case .string(let id)? = first["id"]
        else {
            Issue.record("no snapshot: \(listed)")
            return
        }

        let schema = "cli_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        let target = PostgresConfiguration(connectionString: server, schema: schema)
        defer { _ = try? PostgresRecordEngine.dropStore(target) }
        let newFiles = S3Gateway.freshLocation()
        let restore = ["restore", id, "--root", restored, "--shared", "--repo", repo, "--repo-key-file", key]
        let undeclared = try strata(restore)
        #expect(undeclared.status != 0 && undeclared.standardError.contains("init"), "\(undeclared.standardError)")
        for root in [restored, other] {
            _ = try succeeds([
                "init", root, "--shared", "--records-url",
                server + (server.contains("?") ? "&" : "?") + "strata_schema=" + schema,
                "--files-url", newFiles,
            ])
        }
        #expect(try succeeds(restore).contains("4 keys read back"))
        #expect(try succeeds(["get", "theme", "--root", other]) == "dark")
        #expect(try succeeds(["get", "api/token", "--root", other]) == "tok")
        #expect(try succeeds(["get", "row", "--root", other]) == #"{"n":1}"#)
        _ = try succeeds(["get", "doc", "--root", other, "--output", directory.appending("other-doc")])
        #expect(read(directory.appending("other-doc")) == document)
        #expect(try succeeds(["where", "doc", "--root", other]).hasPrefix("doc\tfiles\ts3\t"))
        _ = try succeeds(["verify", "--root", other])
        // Again, into another root declared the same: the schema holds the store now, and is refused.
        let third = directory.appending("new-c")
        _ = try succeeds([
            "init", third, "--shared", "--records-url",
            server + (server.contains("?") ? "&" : "?") + "strata_schema="
                + schema, "--files-url", newFiles,
        ])
        let again = try strata(["restore", id, "--root", third, "--shared", "--repo", repo, "--repo-key-file", key])
        #expect(again.status != 0 && again.standardError.contains("not empty"), "\(again.standardError)")
    }
}
