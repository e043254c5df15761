import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// What only the PostgreSQL engine has: a server that refuses, drops connections and reports conflicts.
/// The shared test bodies in the other files run on it too.
@Suite("PostgreSQL engine", .enabled(if: engines.contains(.postgres)))
struct PostgresEngineTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture(.postgres) }

    var url: String { ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "" }
    var configuration: PostgresConfiguration {
        get throws { try RecordStoreLocation.postgresConfiguration(fixture.path) }
    }

    /// The server's URL with one part changed.
    func url(replacing part: String, with replacement: String) -> String {
        url.replacingOccurrences(of: part, with: replacement)
    }

    var password: String {
        let credentials = url.components(separatedBy: "://")[1].components(separatedBy: "@")[0]
        return String(credentials.split(separator: ":")[1])
    }

    var port: String { String(url.split(separator: ":").last!.split(separator: "/")[0]) }

    @Test func connectionRefusedIsTyped() throws {
        // A port nothing listens on: bind one, then close it.
        let error = #expect(throws: StorageError.self) {
            try PostgresRecordEngine(
                PostgresConfiguration(connectionString: url(replacing: ":\(port)/", with: ":1/") + "?connect_timeout=5")
            )
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("cannot connect") == true, "\(error?.message ?? "")")
        #expect(error?.operation == "connect")
    }

    @Test func aWrongPasswordIsAuthenticationFailedAndNeverPrinted() throws {
        let wrong = url(replacing: ":\(password)@", with: ":not-the-password@")
        let error = #expect(throws: StorageError.self) {
            try PostgresRecordEngine(PostgresConfiguration(connectionString: wrong))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.sqlState == "28P01")
        let printed = "\(error.map { "\($0)" } ?? "")"
        #expect(!printed.contains("not-the-password") && !printed.contains(password), "\(printed)")
        #expect(printed.contains("***") || printed.contains("strata@"), "\(printed)")
    }

    @Test func aMissingDatabaseAndABadConnectionStringAreTyped() throws {
        let missing = #expect(throws: StorageError.self) {
            try PostgresRecordEngine(
                PostgresConfiguration(
                    connectionString: url.replacingOccurrences(
                        of: "/" + url.split(separator: "/").last!, with: "/nowhere")))
        }
        #expect(missing?.code == .notFound)
        let bad = #expect(throws: StorageError.self) {
            try PostgresRecordEngine(
                PostgresConfiguration(connectionString: "host=127.0.0.1 port=\(port) bogus_option=1"))
        }
        #expect(bad?.code == .invalidArgument)
        let schema = #expect(throws: StorageError.self) {
            try PostgresRecordEngine(PostgresConfiguration(connectionString: url, schema: "bad-name; DROP"))
        }
        #expect(schema?.code == .invalidArgument)
    }

    /// The test server serves TLS with a self-signed certificate (Scripts/postgres.sh, STRATA_POSTGRES_CA).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_CA"] != nil))
    func tlsIsVerifiedAgainstTheGivenRootAndRefusedAgainstAnother() throws {
        let ca = ProcessInfo.processInfo.environment["STRATA_POSTGRES_CA"]!
        var verified = try configuration
        verified.connectionString = url + "?sslmode=verify-full&sslrootcert=\(ca)"
        let engine = try PostgresRecordEngine(verified)
        #expect(engine.usesTLS)
        let store = try RecordStore(engine: engine)
        try store.collection(Counter.self, named: "counters").insert(Counter(id: "tls", value: 1))
        var plain = try configuration
        plain.connectionString = url + "?sslmode=disable"
        #expect(try !PostgresRecordEngine(plain).usesTLS)
        // A root that did not sign the server's certificate: refused, typed, never downgraded to plain text.
        let other = fixture.directory.appending("other-root.crt")
        let made = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "openssl", "req", "-new", "-x509", "-days", "1", "-nodes", "-newkey", "rsa:2048", "-subj",
                "/CN=someone else", "-keyout", fixture.directory.appending("other.key"), "-out", other,
            ])
        #expect(made.status == 0, "\(made.standardError)")
        var wrongRoot = try configuration
        wrongRoot.connectionString = url + "?sslmode=verify-full&sslrootcert=\(other)"
        let error = #expect(throws: StorageError.self) { try PostgresRecordEngine(wrongRoot) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("certificate verify failed") == true, "\(error?.message ?? "")")
    }

    @Test func theSchemaComesFromTheURLAndPasswordsAreRedacted() throws {
        let configuration = PostgresConfiguration(
            connectionString: "postgresql://u:secret@h:5432/db?sslmode=require&strata_schema=app&password=p2")
        #expect(configuration.schema == "app")
        #expect(configuration.connectionString == "postgresql://u:secret@h:5432/db?sslmode=require&password=p2")
        #expect(configuration.redactedConnectionString == "postgresql://u:***@h:5432/db?sslmode=require&password=***")
        #expect(
            PostgresConfiguration(connectionString: "host=h password=secret dbname=x").redactedConnectionString
                == "host=h password=*** dbname=x")
        #expect(PostgresConfiguration(environment: ["STRATA_RECORDS_URL": "postgres://h/db"])?.schema == "strata")
        #expect(PostgresConfiguration(environment: ["STRATA_RECORDS_URL": "/var/lib/app.sqlite"]) == nil)
    }

    /// A store whose pooled connections the server ended goes on: its reads and writes run on new connections.
    @Test func aLostConnectionIsReplacedAndReadsRetried() throws {
        let store = try fixture.store()
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "a", value: 1))
        _ = try endIdleSessions(of: store)
        #expect(try counters.get(id: "a")?.value == 1)
        try counters.upsert(Counter(id: "a", value: 2))
        #expect(try counters.get(id: "a")?.value == 2)
    }

    /// A pooled connection the server closed while it sat idle (what a restart does to all of them) is found at
    /// checkout and replaced: the call it would have been handed to never sees it.
    @Test func anIdleConnectionTheServerClosedIsReplacedAtCheckout() throws {
        let store = try fixture.store()
        try store.collection(Counter.self, named: "counters").insert(Counter(id: "a", value: 1))
        let (engine, ended) = try endIdleSessions(of: store)
        let served = try engine.pool.with { connection -> Int32 in
            _ = try connection.query("SELECT 1", operation: "test")
            return connection.serverProcessID
        }
        #expect(!ended.contains(served))
    }

    /// Ends the server sessions of `store`'s idle pooled connections from another connection, and waits until they
    /// are gone.
    /// - Returns: The store's engine, and the server process ids of the sessions ended.
    func endIdleSessions(of store: RecordStore) throws -> (PostgresRecordEngine, [Int32]) {
        let engine = try #require(store.engine as? PostgresRecordEngine)
        let pids = engine.pool.idleServerProcessIDs()
        try #require(!pids.isEmpty)
        let killer = try PostgresRecordEngine(try configuration)
        try killer.executeForTesting(
            "SELECT pg_terminate_backend(pid, 5000) FROM unnest(ARRAY[\(pids.map(String.init).joined(separator: ","))]::int[]) AS pid"
        )
        return (engine, pids)
    }

    @Test func serializationFailuresAreRetriedThenTyped() throws {
        var single = try configuration
        single.maximumTransactionAttempts = 1
        let store = try fixture.store()
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "x", value: 0))
        let other = try RecordStore(engine: PostgresRecordEngine(single))
        let otherCounters = try other.collection(Counter.self, named: "counters")
        // Inside one transaction of `other`, read x; meanwhile `store` changes it; then write: a conflict.
        let error = #expect(throws: StorageError.self) {
            try other.write { tx in
                var counter = try tx(otherCounters).get(id: "x")!
                try counters.upsert(Counter(id: "x", value: 100))  // commits in another connection
                counter.value += 1
                try tx(otherCounters).upsert(counter)
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.sqlState == "40001")
        #expect(error?.postgres?.attempts == 1)
        #expect(error?.postgres?.elapsed.map { $0 >= 0 && $0 < 30 } == true)
        #expect(try counters.get(id: "x")?.value == 100, "the conflicting transaction changed nothing")
        // With retries (the default), the same transaction runs again and succeeds.
        var runs = 0
        try store.write { tx in
            runs += 1
            var counter = try tx(counters).get(id: "x")!
            if runs == 1 { try otherCounters.upsert(Counter(id: "x", value: 200)) }
            counter.value += 1
            try tx(counters).upsert(counter)
        }
        #expect(runs == 2)
        #expect(try counters.get(id: "x")?.value == 201)
    }

    /// The retries are bounded by time, not by a count: a transaction that conflicts 25 times in a row (more than
    /// the 20 attempts that used to be the limit) still commits within the budget.
    @Test func aTransactionRunsAgainForItsTimeBudgetNotAFixedCount() throws {
        let store = try fixture.store()
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "x", value: 0))
        let other = try RecordStore(engine: PostgresRecordEngine(try configuration))
        let otherCounters = try other.collection(Counter.self, named: "counters")
        var runs = 0
        try store.write { tx in
            runs += 1
            var counter = try tx(counters).get(id: "x")!
            // Another connection changes x after this run read it: a serialization failure, 25 times.
            if runs <= 25 { try otherCounters.upsert(Counter(id: "x", value: counter.value + 1000)) }
            counter.value += 1
            try tx(counters).upsert(counter)
        }
        #expect(runs == 26)
        #expect(try counters.get(id: "x")?.value == 25_001)
    }

    /// Past its budget, a transaction that keeps conflicting is reported with the attempts and the time it took,
    /// as fields.
    @Test func aConflictPastTheBudgetCarriesAttemptsAndElapsedTime() throws {
        var short = try configuration
        short.transactionRetryBudgetMilliseconds = 300
        let store = try RecordStore(engine: PostgresRecordEngine(short))
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "x", value: 0))
        let other = try RecordStore(engine: PostgresRecordEngine(try configuration))
        let otherCounters = try other.collection(Counter.self, named: "counters")
        let started = ContinuousClock.now
        let error = #expect(throws: StorageError.self) {
            try store.write { tx in
                var counter = try tx(counters).get(id: "x")!
                try otherCounters.upsert(Counter(id: "x", value: counter.value + 1000))
                counter.value += 1
                try tx(counters).upsert(counter)
            }
        }
        #expect(error?.code == .conflict)
        #expect((error?.postgres?.attempts ?? 0) > 1, "\(error.map { "\($0)" } ?? "")")
        #expect((error?.postgres?.elapsed ?? 0) >= 0.3)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.description.contains("attempt(s)") == true)
        #expect(
            try counters.get(id: "x")?.value == 1000 * (error?.postgres?.attempts ?? 0), "no failed run left a change")
    }

    /// A transaction that conflicted runs again holding an advisory lock on each record it touched, taken before
    /// its snapshot, so that writers meeting on a hot record queue for it instead of failing each other again.
    @Test func aRetriedTransactionHoldsLocksOnTheRecordsItTouched() throws {
        let store = try fixture.store()
        let engine = try #require(store.engine as? PostgresRecordEngine)
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "x", value: 0))
        let observer = try PostgresRecordEngine(try configuration)
        let key = engine.rowLockKey("counters", "x")
        #expect(key != engine.rowLockKey("counters", "y") && key != engine.rowLockKey("other", "x"))
        /// How many sessions hold the advisory lock of record x (a bigint key is split into classid and objid).
        func advisoryLocks() throws -> Int {
            try observer.read(snapshot: false) { session in
                let result = try (session as! PostgresSession).connection.query(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
                    [.text(String(key))], operation: "test")
                return Int(result.text(0, 0)) ?? -1
            }
        }
        var runs = 0
        var held: [Int] = []
        try store.write { tx in
            runs += 1
            held.append(try advisoryLocks())
            var counter = try tx(counters).get(id: "x")!
            if runs == 1 { try counters.upsert(Counter(id: "x", value: 100)) }
            counter.value += 1
            try tx(counters).upsert(counter)
        }
        #expect(runs == 2)
        #expect(held == [0, 1], "the first run is optimistic; the rerun holds the record's lock")
        #expect(try advisoryLocks() == 0, "released when the transaction ended")
        #expect(try counters.get(id: "x")?.value == 101)
    }

    @Test func timeoutsAndKeepalivesHaveDefaultsThatTheURLOverrides() throws {
        let plain = PostgresConfiguration(connectionString: "postgresql://u@h/db")
        #expect(plain.callTimeoutMilliseconds == 30_000)
        #expect(plain.transactionRetryBudgetMilliseconds == 30_000)
        #expect(plain.maximumTransactionAttempts == .max)
        let keywords = Dictionary(uniqueKeysWithValues: plain.connectionKeywords)
        #expect(keywords["connect_timeout"] == "10")
        #expect(keywords["keepalives"] == "1")
        #expect(keywords["keepalives_idle"] == "30")
        #expect(keywords["keepalives_interval"] == "10")
        #expect(keywords["keepalives_count"] == "3")
        #expect(keywords["tcp_user_timeout"] == "30000")
        let tuned = PostgresConfiguration(
            connectionString: "postgresql://u@h/db?connect_timeout=3&strata_call_timeout=1500&strata_retry_budget=90")
        #expect(tuned.connectionString == "postgresql://u@h/db?connect_timeout=3")
        #expect(tuned.callTimeoutMilliseconds == 1500)
        #expect(tuned.transactionRetryBudgetMilliseconds == 90)
        var negative = plain
        negative.callTimeoutMilliseconds = -1
        #expect(throws: StorageError.self) { try PostgresRecordEngine(negative) }
    }

    /// libpq's connection options as the server's connection really got them: the configuration's defaults, and
    /// what the connection string says instead.
    @Test func theConnectionUsesTheConfiguredKeepalivesAndTheURLsConnectTimeout() throws {
        var tuned = try configuration
        tuned.connectionString += "?connect_timeout=7"
        tuned.keepalivesIdleSeconds = 41
        let engine = try PostgresRecordEngine(tuned)
        let (idle, timeout) = try engine.pool.with { connection in
            (connection.option("keepalives_idle"), connection.option("connect_timeout"))
        }
        #expect(idle == "41")
        #expect(timeout == "7")
    }

    @Test func aFailedStatementCaughtInsideATransactionDoesNotCommitQuietly() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        let error = #expect(throws: StorageError.self) {
            try store.write { tx in
                try tx(people).insert(person(2))
                _ = try? tx(people).insert(person(1))  // fails, and the caller swallows it
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(try people.count() == 1, "person 2 was not committed")
    }

    @Test func textTheServerCannotStoreIsTypedAndNothingIsLost() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        var nul = person(2)
        nul.name = "a\u{0}b"  // jsonb cannot hold U+0000
        let error = #expect(throws: StorageError.self) { try people.insert(nul) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.key == nul.id)
        #expect(try people.count() == 1)
    }

    @Test func aSchemaWithOtherTablesIsRefused() throws {
        let store = try fixture.store()
        let engine = try #require(store.engine as? PostgresRecordEngine)
        try engine.executeForTesting(#"CREATE SCHEMA foreign_app; CREATE TABLE foreign_app.t (x int)"#)
        defer { try? engine.executeForTesting("DROP SCHEMA foreign_app CASCADE") }
        var foreign = try configuration
        foreign.schema = "foreign_app"
        let error = #expect(throws: StorageError.self) { try PostgresRecordEngine(foreign) }
        #expect(error?.code == .notAStore)
        #expect(error?.message.contains("not a Strata record store") == true)
        try engine.executeForTesting("UPDATE strata_meta SET value = '99' WHERE key = 'format_version'")
        let newer = #expect(throws: StorageError.self) { try fixture.store() }
        #expect(newer?.code == .unsupportedVersion)
    }

    @Test func rowsDamagedBehindOurBackAreTypedErrorsAndVerifyFindsThem() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(contentsOf: (0..<5).map(person))
        let engine = try #require(store.engine as? PostgresRecordEngine)
        // Someone with SQL access writes bodies that are not records of this shape.
        try engine.executeForTesting(
            #"UPDATE c_people SET body = '"just a string"' WHERE id = 'p00001'; UPDATE c_people SET body = '{"id": "p00002", "name": 7}' WHERE id = 'p00002'"#
        )
        let scalar = #expect(throws: StorageError.self) { try people.get(id: "p00001") }
        #expect(scalar?.code == .typeMismatch)
        #expect(scalar?.key == "p00001" && scalar?.collection == "people")
        let shape = #expect(throws: StorageError.self) { try people.get(id: "p00002") }
        #expect(shape?.code == .typeMismatch)
        #expect(shape?.message.contains("name") == true, "\(shape?.message ?? "")")
        #expect(try people.get(id: "p00003") == person(3), "the other records still read")
        #expect(try store.verify() == ["collection 'people': record 'p00001' is not a JSON object"])
        // A table whose shape was changed is reported, not misread.
        try engine.executeForTesting("ALTER TABLE c_people ADD COLUMN extra int")
        #expect(try store.verify().contains { $0.contains("columns are (id text, body jsonb, extra integer)") })
    }

    @Test func aLinguisticCollationIsDetectedAndPrefixesStayExact() throws {
        // A database whose default collation is ICU's en-US: text does not sort bytewise there.
        let admin = try PostgresRecordEngine(try configuration)
        let database = "strata_icu_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        try admin.executeForTesting(
            "CREATE DATABASE \(database) LOCALE_PROVIDER icu ICU_LOCALE 'en-US' TEMPLATE template0")
        defer { try? admin.executeForTesting("DROP DATABASE IF EXISTS \(database) WITH (FORCE)") }
        let icuURL = url.replacingOccurrences(of: "/" + url.split(separator: "/").last!, with: "/" + database)
        let engine = try PostgresRecordEngine(PostgresConfiguration(connectionString: icuURL))
        defer { engine.close() }
        #expect(!engine.sortsTextBytewise)
        let store = try RecordStore(engine: engine)
        let names = try store.collection(Person.self, named: "names", indexes: [.field("name")])
        for (index, name) in ["Abel", "abe", "Ab-c", "Äbe", "AB", "Ac", "Ab"].enumerated() {
            var record = person(index)
            record.name = name
            try names.insert(record)
        }
        // Case- and accent-sensitive, exactly as on SQLite, whatever the collation thinks.
        #expect(try names.fetch(where: Field("name").hasPrefix("Ab")).map(\.name).sorted() == ["Ab", "Ab-c", "Abel"])
        #expect(try names.count(where: Field("name").hasPrefix("")) == 7)
    }

    @Test func psqlReadsOurTables() throws {
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
        try people.insert(contentsOf: (0..<10).map(person))
        #expect(try store.verify() == [])
        let schema = try configuration.schema
        let psql = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "psql", url, "-At", "-c",
                "SELECT body->>'name' FROM \(schema).c_people WHERE id = 'p00003'; SELECT count(*) FROM \(schema).c_people WHERE (body->>'age')::int >= 20",
            ])
        #expect(psql.standardOutput == "Person 3\n8\n", "\(psql.standardError)")
    }

    @Test func twoStoresInOneProcessSeeEachOthersCommitsAsExternal() async throws {
        let first = try fixture.store()
        let second = try fixture.store()
        let a = try first.collection(Counter.self, named: "counters")
        let b = try second.collection(Counter.self, named: "counters")
        let stream = b.changes()
        let waiter = Task { () -> RecordChange? in
            for await change in stream where change.isExternal { return change }
            return nil
        }
        try await Task.sleep(for: .milliseconds(300))  // the listener connects
        try a.insert(Counter(id: "one", value: 1))
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            waiter.cancel()
        }
        let change = await waiter.value
        timeout.cancel()
        #expect(change == RecordChange(collection: "counters", isExternal: true))
        #expect(try b.get(id: "one")?.value == 1)
    }
}

/// A server of the test's own, crashed and restarted under a live store. Needs `Scripts/postgres.sh` and the
/// server binaries, which the suite has whenever the shared server runs.
@Suite("PostgreSQL engine: the server goes away", .enabled(if: engines.contains(.postgres)))
struct PostgresServerLossTests {
    final class OwnServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scripts/postgres.sh").standardized.path
        let folder: TemporaryDirectory
        var environment: [String: String] = [:]
        var url: String { environment["STRATA_POSTGRES_URL"] ?? "" }

        init() throws {
            // The server outlives the script and would hold a pipe open: the exports go through a file.
            folder = try TemporaryDirectory(prefix: "strata-pg-own")
            let exports = folder.appending("exports")
            let status = Self.shell("bash '\(script)' start > '\(exports)' 2>&1 < /dev/null")
            let output = (try? String(contentsOfFile: exports, encoding: .utf8)) ?? ""
            guard status == 0 else { throw StorageError(.io, "postgres.sh start: \(output)") }
            for line in output.split(separator: "\n") {
                let parts = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
                if parts.count == 2 { environment[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
            }
        }

        func run(_ verb: String) throws {
            let directory = environment["STRATA_POSTGRES_DIR"] ?? ""
            let status = Self.shell(
                "STRATA_POSTGRES_DIR='\(directory)' bash '\(script)' \(verb) > /dev/null 2>&1 < /dev/null")
            guard status == 0 else { throw StorageError(.io, "postgres.sh \(verb) failed with status \(status)") }
        }

        /// Runs a shell command and waits for it (and only it: the server it starts lives on). Foundation's
        /// `Process` waits for the pipes the server inherits, so this uses `system(3)`.
        static func shell(_ command: String) -> Int32 {
            #if canImport(Glibc)
                return system(command)
            #else
                return -1
            #endif
        }

        /// Whether the server is still out of service the way a test put it: stopped (no postmaster) or frozen
        /// (the postmaster stopped by `SIGSTOP`, state `T` in `/proc/<pid>/stat`). A call that fails while this
        /// holds gave up on its own deadline; one that returned only when the server came back did not.
        var isOutOfService: Bool {
            let directory = environment["STRATA_POSTGRES_DIR"] ?? ""
            guard let pidFile = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
                let pid = pidFile.split(separator: "\n").first.map(String.init),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return true }
            return stat[stat.index(after: close)...].split(separator: " ").first == "T"
        }

        deinit { try? run("stop") }
    }

    @Test func aCrashedServerGivesTypedErrorsAndTheStoreRecoversWhenItIsBack() async throws {
        let server = try OwnServer()
        let store = try PostgresRecordEngine.store(
            PostgresConfiguration(connectionString: server.url, schema: "loss", maximumTransactionAttempts: 3))
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(contentsOf: (0..<100).map { Counter(id: "c\($0)", value: $0) })
        let stream = counters.changes()
        try server.run("crash")
        // Reads and writes fail typed while the server is down; nothing crashes.
        let read = #expect(throws: StorageError.self) { try counters.get(id: "c1") }
        #expect(read?.code == .connectionFailed, "\(read.map { "\($0)" } ?? "")")
        let write = #expect(throws: StorageError.self) { try counters.insert(Counter(id: "lost", value: 0)) }
        #expect(write?.code == .connectionFailed)
        try server.run("resume")
        // Every acknowledged commit survived the crash, and the pool reconnects by itself.
        #expect(try counters.count() == 100)
        #expect(try counters.get(id: "c99")?.value == 99)
        try counters.insert(Counter(id: "after", value: 1))
        #expect(try counters.get(id: "lost") == nil)
        // The listener reconnects too, and reports that it may have missed commits.
        let change = await Self.firstChange(in: stream) { $0.isExternal }
        #expect(change?.isExternal == true)
    }

    /// The first change on `stream` that `matches`, or `nil` after 20 s.
    static func firstChange(
        in stream: AsyncStream<RecordChange>, where matches: @escaping @Sendable (RecordChange) -> Bool
    ) async -> RecordChange? {
        let waiter = Task { () -> RecordChange? in
            for await change in stream where matches(change) { return change }
            return nil
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            waiter.cancel()
        }
        defer { timeout.cancel() }
        return await waiter.value
    }
}
