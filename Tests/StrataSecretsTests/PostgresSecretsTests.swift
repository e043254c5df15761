import Foundation
import StrataConformance
import StrataCore
import StrataPostgres
import StrataSecrets
import StrataSecretsPostgres
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataPostgresClient

/// The secrets tier on PostgreSQL: keyring folders as rows, sealed on the machines. Each instance stands for a
/// machine; the server (someone with access to the database) is the adversary of the rollback and plaintext tests.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_POSTGRES_URL (Scripts/test.sh starts a server)"))
final class PostgresSecretsTests {
    let postgres: PostgresConfiguration
    let key = KeyProvider.inMemory(Secret(Data(repeating: 0x42, count: 32)))
    static let keyrings = Atomic<Int>(0)

    init() {
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        postgres = PostgresConfiguration(
            connectionString: server, schema: "ps_" + String(UInt64.random(in: 0...UInt64.max), radix: 36))
    }

    deinit { _ = try? PostgresRecordEngine.dropStore(postgres) }

    /// A machine's instance on `keyring`, unlocked with `key` (the keyring is created by the first).
    func machine(
        _ keyring: String = "default", key: KeyProvider? = nil, anchorPath: String? = nil,
        configuration: SecretsConfiguration = SecretsConfiguration()
    ) throws -> PostgresSecrets {
        let secrets = try PostgresSecrets(
            keyring: keyring, configuration: postgres, secretsConfiguration: configuration, anchorPath: anchorPath)
        try secrets.unlock(with: key ?? self.key)
        return secrets
    }

    /// Runs SQL on the test's schema as someone with access to the database would.
    func server<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try PostgresPool(postgres.client).with(body)
    }

    /// The item row of `account` (service `svc`) as hex, found by trying each row's name against the instance.
    func itemRow(_ keyring: String = "default") throws -> [(name: String, item: String)] {
        try server { connection in
            let rows = try connection.query(
                "SELECT name, encode(item, 'hex') FROM strata_secrets WHERE keyring = $1::text ORDER BY name",
                [.text(keyring)], operation: "test")
            return (0..<rows.rowCount).map { (rows.text($0, 0), rows.text($0, 1)) }
        }
    }

    @Test(arguments: BackendConformance.checkIDs)
    func conformance(_ check: String) async throws {
        try await BackendConformance.run(check, options: BackendConformance.Options(manyKeysCount: 100)) {
            // A keyring of its own per backend, in the test's schema.
            try machine("c\(Self.keyrings.wrappingAdd(1, ordering: .relaxed).newValue)")
        }
    }

    /// Items set on one machine read on another, with their attributes; a replacement keeps the creation date and
    /// label; a deletion is seen everywhere.
    @Test func itemsRoundTripBetweenMachines() throws {
        let (a, b) = (try machine(), try machine())
        try a.set("tok_live_1", service: "api.example.com", account: "alice", label: "Alice's token")
        #expect(try b.get(service: "api.example.com", account: "alice")?.stringValue == "tok_live_1")
        let first = try #require(try b.attributes(service: "api.example.com", account: "alice"))
        #expect(first.label == "Alice's token" && first.accessibility == .whenUnlocked && first.valueSize == 10)
        try b.set("tok_live_22", service: "api.example.com", account: "alice")
        let second = try #require(try a.attributes(service: "api.example.com", account: "alice"))
        #expect(second.label == "Alice's token" && second.creationDate == first.creationDate)
        #expect(second.modificationDate > first.modificationDate)
        #expect(try a.get(service: "api.example.com", account: "alice")?.stringValue == "tok_live_22")
        try a.set("pw", service: "db", account: "app", accessibility: .afterFirstUnlock)
        #expect(
            try b.items().map(\.description) == [
                "api.example.com/alice [whenUnlocked] \"Alice's token\"", "db/app [afterFirstUnlock]",
            ])
        #expect(try b.items(service: "db").map(\.account) == ["app"])
        #expect(try b.delete(service: "db", account: "app"))
        #expect(try a.get(service: "db", account: "app") == nil)
        #expect(try !a.delete(service: "db", account: "app"))
        #expect(try !a.contains(service: "db", account: "app"))
    }

    /// What a keyring refuses: another machine's wrong key, a passphrase on a key-protected keyring, a missing
    /// keyring when not creating, an item bound to one machine, a value over the limit, empty and long names.
    @Test func refusals() throws {
        _ = try machine()
        let wrong = #expect(throws: StorageError.self) {
            try machine(key: .inMemory(Secret(Data(repeating: 0x43, count: 32))))
        }
        #expect(wrong?.code == .authenticationFailed)
        let passphrase = #expect(throws: StorageError.self) { try machine(key: .passphrase("hunter2")) }
        #expect(passphrase?.code == .invalidArgument)
        let missing = #expect(throws: StorageError.self) {
            try PostgresSecrets(keyring: "absent", configuration: postgres).unlock(with: key, createIfMissing: false)
        }
        #expect(missing?.code == .notFound && missing?.collection == "absent")
        let a = try machine(configuration: SecretsConfiguration(valueLimit: 64))
        let bound = #expect(throws: StorageError.self) {
            try a.set("x", service: "s", account: "a", accessibility: .whenUnlockedThisDeviceOnly)
        }
        #expect(bound?.code == .invalidArgument && bound?.key == "s/a")
        let large = #expect(throws: StorageError.self) {
            try a.set(Secret(Data(count: 65)), service: "s", account: "a")
        }
        #expect(large?.code == .tooLarge && large?.attribute == "value")
        #expect(throws: StorageError.self) { try a.set("x", service: "", account: "a") }
        let long = #expect(throws: StorageError.self) {
            try a.set("x", service: "s", account: String(repeating: "a", count: 1025))
        }
        #expect(long?.attribute == "account")
        let locked = #expect(throws: StorageError.self) {
            try PostgresSecrets(configuration: postgres).get(service: "s", account: "a")
        }
        #expect(locked?.code == .locked)
        #expect(try a.items().isEmpty, "nothing refused was written")
    }

    /// `lock()` wipes the data key: `whenUnlocked` items no longer read, `afterFirstUnlock` ones still do.
    @Test func lockKeepsAfterFirstUnlockItemsReadable() throws {
        let a = try machine()
        try a.set("one", service: "s", account: "when")
        try a.set("two", service: "s", account: "after", accessibility: .afterFirstUnlock)
        a.lock()
        #expect(a.isLocked)
        let locked = #expect(throws: StorageError.self) { try a.get(service: "s", account: "when") }
        #expect(locked?.code == .locked)
        #expect(try a.get(service: "s", account: "after")?.stringValue == "two")
        try a.unlock(with: key)
        #expect(try a.get(service: "s", account: "when")?.stringValue == "one")
    }

    /// No value, service or account reaches the server in clear: every row of every table of the schema, as the
    /// server renders it (bytea as hex), is scanned for each value's bytes (as text, and as hex).
    @Test func noPlaintextOnTheServer() throws {
        let a = try machine()
        let values = ["tok_live_8c1f2a9d", "correct horse battery staple", "AKIAEXAMPLEKEY77"]
        let names = ["payments.example.com", "ops-account-zeta"]
        for (index, value) in values.enumerated() {
            try a.set(value, service: names[0], account: names[1] + String(index), label: "label-omega")
        }
        try a.put(Data("bytes-through-the-facade".utf8), for: "cfg/token")
        try a.rotate()
        let dump = try server { connection -> String in
            let tables = try connection.query(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = $1::text",
                [.text(postgres.schema)], operation: "test")
            #expect(tables.rowCount >= 2)
            return try (0..<tables.rowCount).map { row in
                let table = tables.text(row, 0)
                let rows = try connection.query(
                    "SELECT coalesce(string_agg(t::text, ' '), '') FROM \(postgres.quotedSchema).\"\(table)\" t",
                    operation: "test")
                return rows.text(0, 0)
            }.joined(separator: "\n")
        }
        #expect(dump.contains("\\x"), "the scan sees the sealed bytes")
        for plain in values + names + ["label-omega", "bytes-through-the-facade", "cfg/token"] {
            #expect(!dump.contains(plain), "\(plain) in clear")
            #expect(!dump.lowercased().contains(Hex.encode(Array(plain.utf8))), "\(plain) as bytes")
        }
        #expect(try machine().get(service: names[0], account: names[1] + "2")?.stringValue == values[2])
    }

    /// An older row of an item put back by someone with access to the database is refused on every machine, and so
    /// is a deleted item's row put back, a row moved onto another item, and a row removed that the manifest holds.
    @Test func rowsPutBackOrMovedAreRefused() throws {
        let (a, b) = (try machine(), try machine())
        try a.set("revoked", service: "s", account: "a")
        let old = try #require(try itemRow().first)
        try a.set("current", service: "s", account: "a")
        try server { connection in
            _ = try connection.query(
                "UPDATE strata_secrets SET item = decode($2::text, 'hex') WHERE name = $1::text",
                [.text(old.name), .text(old.item)], operation: "test")
        }
        for machine in [a, b] {
            let refused = #expect(throws: StorageError.self) { try machine.get(service: "s", account: "a") }
            #expect(refused?.code == .rolledBack && refused?.key == "s/a", "\(String(describing: refused))")
        }
        // A set replaces the row it cannot vouch for, as a keyring folder's file is replaced: the way out.
        try b.set("new", service: "s", account: "a")
        #expect(try a.get(service: "s", account: "a")?.stringValue == "new")
        // A deleted item put back.
        try a.set("gone", service: "s", account: "d")
        let deleted = try #require(try itemRow().first { $0.name != old.name })
        try a.delete(service: "s", account: "d")
        try server { connection in
            _ = try connection.query(
                "INSERT INTO strata_secrets VALUES ('default', $1::text, decode($2::text, 'hex'))",
                [.text(deleted.name), .text(deleted.item)], operation: "test")
        }
        #expect(throws: StorageError.self) { try b.get(service: "s", account: "d") }
        #expect(throws: StorageError.self) { try b.items() }
        // A row copied over another item's.
        try server { connection in
            _ = try connection.query(
                "DELETE FROM strata_secrets WHERE name = $1::text", [.text(deleted.name)], operation: "test")
        }
        try a.set("x", service: "s", account: "x")
        try a.set("y", service: "s", account: "y")
        let rows = try itemRow().filter { $0.name != old.name }
        #expect(rows.count == 2)
        try server { connection in
            _ = try connection.query(
                "UPDATE strata_secrets SET item = decode($2::text, 'hex') WHERE name = $1::text",
                [.text(rows[0].name), .text(rows[1].item)], operation: "test")
        }
        let moved = try [("x"), ("y")].compactMap { account -> StorageError? in
            do {
                _ = try b.get(service: "s", account: account)
                return nil
            } catch let error as StorageError { return error }
        }
        #expect(moved.count == 1 && moved.first?.code == .corrupt, "\(moved)")
        // A row removed that the manifest holds.
        try server { connection in
            _ = try connection.query(
                "DELETE FROM strata_secrets WHERE name = $1::text", [.text(rows[1].name)], operation: "test")
        }
        // (The listing meets the rolled-back row of `a` too; each item read alone says what is wrong with it.)
        let errors = ["x", "y"].compactMap { account -> StorageError? in
            do {
                _ = try b.get(service: "s", account: account)
                return nil
            } catch { return error as? StorageError }
        }
        #expect(errors.count == 2 && errors.allSatisfy { $0.code == .corrupt }, "\(errors)")
        #expect(errors.contains { $0.message.contains("its row is missing") }, "\(errors)")
        #expect(throws: StorageError.self) { try b.items() }
    }

    /// A keyring row whose clear sequence number no writer makes (negative) is refused at once, never looped on.
    @Test func aSequenceNumberNoWriterMakesIsCorrupt() throws {
        let a = try machine()
        try a.set("v", service: "s", account: "a")
        try server { connection in try connection.execute("UPDATE strata_keyrings SET sequence = -1", operation: "test")
        }
        let refused = #expect(throws: StorageError.self) { try a.get(service: "s", account: "a") }
        #expect(refused?.code == .corrupt)
        #expect(throws: StorageError.self) { try a.set("w", service: "s", account: "a") }
    }

    /// A lock and unlock while writes run: every unlock leaves the store unlocked (a write in flight never puts
    /// back the keys the lock wiped), and no read is falsely refused.
    @Test func lockAndUnlockWhileWritesRun() async throws {
        let a = try machine()
        let stop = Atomic<Bool>(false)
        let writer = Task.detached {
            var round = 0
            while !stop.load(ordering: .relaxed) {
                try a.set("v\(round)", service: "s", account: "w", accessibility: .afterFirstUnlock)
                round += 1
            }
        }
        for _ in 0..<60 {
            a.lock()
            try a.unlock(with: key)
            #expect(!a.isLocked)
        }
        stop.store(true, ordering: .relaxed)
        try await writer.value
        try a.set("x", service: "s", account: "when")
        #expect(try a.get(service: "s", account: "when")?.stringValue == "x")
    }

    /// The whole keyring put back from an older copy (its manifest and rows together) is refused by every machine
    /// that saw a newer one, also after a restart when it keeps an anchor file; a machine that never saw a newer one
    /// cannot tell (as with a folder restored whole), which the test states.
    @Test func aKeyringRolledBackWholeIsRefusedByMachinesThatSawNewer() throws {
        let directory = try TemporaryDirectory()
        let anchor = directory.appending("a.anchor")
        let a = try machine(anchorPath: anchor)
        try a.set("revoked", service: "s", account: "a")
        // An older copy of the whole keyring, kept on the server to put back later.
        try server { connection in
            try connection.execute(
                "CREATE TABLE keep_k AS SELECT * FROM strata_keyrings; CREATE TABLE keep_s AS SELECT * FROM strata_secrets",
                operation: "test")
        }
        try a.set("current", service: "s", account: "a")
        let reader = try machine()
        #expect(try reader.get(service: "s", account: "a")?.stringValue == "current")
        try server { connection in
            try connection.execute(
                "DELETE FROM strata_keyrings; INSERT INTO strata_keyrings SELECT * FROM keep_k; "
                    + "DELETE FROM strata_secrets; INSERT INTO strata_secrets SELECT * FROM keep_s; "
                    + "DROP TABLE keep_k; DROP TABLE keep_s", operation: "test")
        }
        let refused = #expect(throws: StorageError.self) { try a.get(service: "s", account: "a") }
        #expect(refused?.code == .rolledBack, "\(String(describing: refused))")
        let refusedReader = #expect(throws: StorageError.self) { try reader.get(service: "s", account: "a") }
        #expect(refusedReader?.code == .rolledBack, "a machine that only read the newer one refuses it too")
        let restarted = #expect(throws: StorageError.self) { try machine(anchorPath: anchor) }
        #expect(restarted?.code == .rolledBack, "the anchor file remembers across a restart")
        #expect(try machine().get(service: "s", account: "a")?.stringValue == "revoked", "a new machine cannot tell")
    }

    /// A rotation on one machine re-seals every item under a new data key; the other machine follows at its next
    /// read and writes under the new key. A change of key re-wraps the data key: unlocked machines read on, a
    /// machine starting with the old key is refused, with the new one it opens; after a rotation wrapped under the
    /// new key, a machine holding only the old one is refused until it unlocks with the new.
    @Test func rotationAndChangeOfKeyAcrossMachines() throws {
        let (a, b) = (try machine(), try machine())
        for index in 0..<5 { try a.set("v\(index)", service: "s", account: "a\(index)") }
        let before = try itemRow()
        #expect(try a.rotate() == 5)
        let after = try itemRow()
        #expect(zip(before, after).allSatisfy { $0.name == $1.name && $0.item != $1.item }, "every row re-sealed")
        #expect(try b.get(service: "s", account: "a3")?.stringValue == "v3")
        try b.set("w", service: "s", account: "b")
        #expect(try a.get(service: "s", account: "b")?.stringValue == "w")
        #expect(try machine().get(service: "s", account: "a0")?.stringValue == "v0")

        let next = KeyProvider.inMemory(Secret(Data(repeating: 0x44, count: 32)))
        let d = try machine()
        try a.changeKey(to: next)
        #expect(try b.get(service: "s", account: "a1")?.stringValue == "v1", "an unlocked machine reads on")
        // b holds the old key: a rotation under it would undo the change, so it is refused, and takes the new one.
        let undo = #expect(throws: StorageError.self) { try b.rotate() }
        #expect(undo?.code == .invalidArgument, "\(String(describing: undo))")
        #expect(try b.rotate(with: next) == 6)
        let old = #expect(throws: StorageError.self) { try machine() }
        #expect(old?.code == .authenticationFailed)
        let c = try machine(key: next)
        #expect(try c.get(service: "s", account: "b")?.stringValue == "w")
        try c.rotate()
        #expect(try a.get(service: "s", account: "a4")?.stringValue == "v4")
        #expect(try b.get(service: "s", account: "a4")?.stringValue == "v4")
        // d was unlocked with the old key before the change: the rotated keyring no longer opens with it.
        let stale = #expect(throws: StorageError.self) { try d.get(service: "s", account: "a4") }
        #expect(stale?.code == .authenticationFailed && stale?.message.contains("rotated on another machine") == true)
        try d.unlock(with: next)
        #expect(try d.get(service: "s", account: "a4")?.stringValue == "v4")
    }

    /// Writers on two machines, four threads each, setting and replacing distinct items at once: every write
    /// lands, and the manifest holds each at its last generation (every item reads back, none rolled back).
    @Test func concurrentWritersOnTwoMachines() async throws {
        let machines = [try machine(), try machine()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let secrets = machines[worker % 2]
                    for round in 0..<6 {
                        try secrets.set("w\(worker)r\(round)", service: "s", account: "w\(worker)")
                        try secrets.set("shared\(worker)", service: "s", account: "shared")
                    }
                }
            }
            try await group.waitForAll()
        }
        for worker in 0..<8 {
            #expect(
                try machines[1 - worker % 2].get(service: "s", account: "w\(worker)")?.stringValue == "w\(worker)r5")
        }
        #expect(try machines[0].items().count == 9)
        #expect(try machines[0].get(service: "s", account: "shared")?.stringValue?.hasPrefix("shared") == true)
    }

    /// A keyring row removed on the server is not silently made again over what it left: item rows of its name, or
    /// (on a machine that saw it, through its anchor file) nothing at all; a machine that never saw it starts anew.
    @Test func aRemovedKeyringIsNotMadeAgainOverWhatItLeft() throws {
        let directory = try TemporaryDirectory()
        let anchor = directory.appending("a.anchor")
        let a = try machine(anchorPath: anchor)
        try a.set("v", service: "s", account: "a")
        try server { connection in try connection.execute("DELETE FROM strata_keyrings", operation: "test") }
        let gone = #expect(throws: StorageError.self) { try a.get(service: "s", account: "a") }
        #expect(gone?.code == .notFound && gone?.collection == "default")
        let overItems = #expect(throws: StorageError.self) { try machine() }
        #expect(overItems?.code == .corrupt && overItems?.message.contains("item row") == true)
        try server { connection in try connection.execute("DELETE FROM strata_secrets", operation: "test") }
        let seen = #expect(throws: StorageError.self) { try machine(anchorPath: anchor) }
        #expect(seen?.code == .corrupt && seen?.recovery?.contains(anchor) == true, "\(String(describing: seen))")
        #expect(try machine().items().isEmpty, "a machine that never saw it makes a new keyring")
    }

    /// A capture refuses a row whose name no writer makes (one named like the keyring file, say), rather than let
    /// it overwrite a file of the captured folder.
    @Test func aCaptureRefusesRowNamesNoWriterMakes() throws {
        let a = try machine()
        try a.set("v", service: "s", account: "a")
        try server { connection in
            try connection.execute(
                "INSERT INTO strata_secrets SELECT keyring, 'keyring.json', item FROM strata_secrets", operation: "test"
            )
        }
        let directory = try TemporaryDirectory()
        let refused = #expect(throws: StorageError.self) {
            try a.capture(into: try FolderCapture(folder: directory.appending("capture")), root: "")
        }
        #expect(refused?.code == .corrupt && refused?.message.contains("keyring.json") == true)
    }

    /// An item row whose keyring row is gone is left out of a capture and named (`orphaned`), not dropped in silence;
    /// the keyrings that exist are captured whole.
    @Test func aCaptureNamesItemRowsWhoseKeyringIsGone() throws {
        let a = try machine()
        try a.set("v", service: "s", account: "a")
        try server { connection in
            try connection.execute(
                "INSERT INTO strata_secrets SELECT 'lost', name, item FROM strata_secrets", operation: "test")
        }
        let directory = try TemporaryDirectory()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        let report = try a.capture(into: capture, root: "")
        #expect(report.omissions.map(\.reason) == [.orphaned], "\(report.omissions)")
        #expect(report.omissions.first?.path.hasPrefix("secrets/lost/") == true)
        #expect(capture.files.contains { $0.path.hasPrefix("secrets/default/") && $0.path.hasSuffix(".item") })
        #expect(!capture.files.contains { $0.path.hasPrefix("secrets/lost") })
    }

    /// A keyring folder loads as the rows a writer makes, byte for byte (another instance with the key reads its
    /// items); a keyring already on the server, and a folder holding a file no writer makes, are refused.
    @Test func aKeyringFolderLoadsAsItsRows() throws {
        let a = try machine()
        try a.set("tok", service: "api", account: "alice", label: "L")
        let directory = try TemporaryDirectory()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try a.capture(into: capture, root: "")
        let folder = directory.appending("root")
        for file in capture.files {
            let path = folder + "/" + file.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try #require(capture.contents(of: file.path)).write(to: URL(fileURLWithPath: path))
        }
        // The folder's keyring is named `default`, its items bound to that name: it loads under that name only.
        let renamed = #expect(throws: StorageError.self) {
            try PostgresSecrets(keyring: "copied", configuration: postgres).load(
                keyringFolder: folder + "/secrets/default")
        }
        #expect(renamed?.code == .corrupt, "\(String(describing: renamed))")
        try server { connection in
            try connection.execute("DELETE FROM strata_secrets; DELETE FROM strata_keyrings", operation: "test")
        }
        let loaded = try PostgresSecrets(keyring: "default", configuration: postgres)
        try loaded.load(keyringFolder: folder + "/secrets/default")
        try loaded.unlock(with: key)
        #expect(try loaded.get(service: "api", account: "alice")?.stringValue == "tok")
        #expect(try loaded.attributes(service: "api", account: "alice")?.label == "L")
        let again = #expect(throws: StorageError.self) { try loaded.load(keyringFolder: folder + "/secrets/default") }
        #expect(again?.code == .conflict, "\(String(describing: again))")
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/secrets/default/stray.item"))
        try server { connection in
            try connection.execute("DELETE FROM strata_secrets; DELETE FROM strata_keyrings", operation: "test")
        }
        let stray = #expect(throws: StorageError.self) { try loaded.load(keyringFolder: folder + "/secrets/default") }
        #expect(
            stray?.code == .corrupt && stray?.message.contains("stray.item") == true, "\(String(describing: stray))")
    }

    /// Readers and writers on many threads of one instance: a read whose statement overlaps a write sees the
    /// manifest before it or after it, never a false `rolled-back` (a manifest older than one seen only while the
    /// statement ran is the read's own answer, not a rollback).
    @Test func readsOverlappingWritesOnOneInstanceAreNeverRefused() async throws {
        let a = try machine()
        try a.set("v0", service: "s", account: "k")
        let deadline = ContinuousClock.now + .seconds(3)
        var tasks: [Task<Void, any Error>] = []
        for writer in 0..<2 {
            tasks.append(
                Task.detached {
                    var round = 0
                    while ContinuousClock.now < deadline {
                        try a.set("w\(writer)-\(round)", service: "s", account: "k")
                        round += 1
                    }
                })
        }
        for _ in 0..<4 {
            tasks.append(
                Task.detached {
                    while ContinuousClock.now < deadline {
                        guard try a.get(service: "s", account: "k") != nil else { throw CancellationError() }
                        _ = try a.items()
                    }
                })
        }
        for task in tasks { try await task.value }
    }

    /// A capture writes each keyring as the folder a `SecretStore` keeps, from the rows' very bytes: it opens as a
    /// keyring folder with the same key, every item readable.
    @Test func aCaptureOpensAsAKeyringFolder() throws {
        let a = try machine()
        try a.set("tok", service: "api", account: "alice", label: "L")
        try a.put(Data("facade".utf8), for: "cfg/key")
        try a.set("gone", service: "api", account: "bob")
        try a.delete(service: "api", account: "bob")
        let directory = try TemporaryDirectory()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        let report = try a.capture(into: capture, root: "")
        #expect(report.omissions.isEmpty)
        let root = directory.appending("root")
        for file in capture.files {
            let path = root + "/" + file.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try #require(capture.contents(of: file.path)).write(to: URL(fileURLWithPath: path))
        }
        let local = try SecretStore(keyring: "default", paths: StoragePaths(root: root), unlockingWith: key)
        #expect(try local.get(service: "api", account: "alice")?.stringValue == "tok")
        #expect(try local.attributes(service: "api", account: "alice")?.label == "L")
        #expect(try local.data(for: "cfg/key") == Data("facade".utf8))
        #expect(try local.get(service: "api", account: "bob") == nil)
        #expect(local.structuralProblems().isEmpty)
    }
}
