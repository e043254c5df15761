// The records workload on PostgreSQL over loopback, beside the same workload on SQLite, and beside raw libpq
// (prepared statements, the same table and pre-serialized JSON: the ceiling for any PostgreSQL client), in one run.
//
//   swift run -c release strata-bench-postgres [--quick] [--rounds N]
//   swift run -c release strata-bench-postgres --profile insert|import   # one bulk run alone, for callgrind
//   swift run -c release strata-bench-postgres --layouts [--rounds N]    # the server's CPU per record for each
//                                                                         # layout of the index (LayoutComparison)
//
// The inserts in one transaction and the JSON Lines import, of 20,000 records (with --quick too; the rest uses
// 5,000 with --quick), run N rounds (default 5), Strata and its baselines
// interleaved, and report the median and the range: the import against `psql \copy` of the same rows, the tool a
// user would otherwise pick. Each also reports the CPU time per record of the client (this process) and of the
// server (every process of a server on this machine), to show which side bounds it. The point gets and the
// single-record upserts also run in such rounds, Strata and raw libpq alternated, with the CPU time of each.
//
// It uses the server in STRATA_POSTGRES_URL, or starts a throwaway one with Scripts/postgres.sh and stops it.
import BenchmarkKit
import CLibPQ
import Foundation
import StrataPostgres
import StrataRecords
import StrataSQLite

// MARK: Raw libpq, the ceiling

/// The workload's sizes, from the command line.
struct Sizes {
    let quick = CommandLine.arguments.contains("--quick")
    /// The records of the point gets, queries and upserts.
    var count: Int { quick ? 5_000 : 20_000 }
    /// The records of the inserts in one transaction and of the JSON Lines import: 20,000 even with `--quick`,
    /// the size their target is set for.
    let bulkCount = 20_000
    var durableCount: Int { quick ? 200 : 1_000 }
    var rounds: Int {
        CommandLine.arguments.firstIndex(of: "--rounds").flatMap {
            CommandLine.arguments.indices.contains($0 + 1) ? Int(CommandLine.arguments[$0 + 1]) : nil
        } ?? 5
    }
}

final class RawPostgres {
    let connection: OpaquePointer
    init(_ url: String) {
        connection = PQconnectdb(url)!
        strata_pg_silence(connection)
        exec("DROP SCHEMA IF EXISTS raw_bench CASCADE; CREATE SCHEMA raw_bench; SET search_path TO raw_bench")
        // Strata's layout (format version 2): the key of `age` in a column the client fills, indexed.
        exec(#"CREATE TABLE c_people (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL, k__age bytea NOT NULL)"#)
        exec("CREATE INDEX i_people_age ON c_people (k__age)")
        prepare("insert", "INSERT INTO c_people (id, body, k__age) VALUES ($1::text, $2::jsonb, $3::bytea)")
        prepare("get", "SELECT body FROM c_people WHERE id = $1::text")
        prepare(
            "upsert",
            "INSERT INTO c_people (id, body, k__age) VALUES ($1::text, $2::jsonb, $3::bytea) ON CONFLICT (id) DO UPDATE SET body = excluded.body, k__age = excluded.k__age"
        )
    }
    func close() {
        exec("DROP SCHEMA raw_bench CASCADE")
        PQfinish(connection)
    }
    func exec(_ sql: String) {
        let result = PQexec(connection, sql)
        if PQresultStatus(result) != PGRES_COMMAND_OK && PQresultStatus(result) != PGRES_TUPLES_OK {
            fatalError(String(cString: PQerrorMessage(connection)))
        }
        PQclear(result)
    }
    func prepare(_ name: String, _ sql: String) { PQclear(PQprepare(connection, name, sql, 0, nil)) }
    /// The rows in one transaction as one binary `COPY` in pieces of 64 KiB: the least a client can ask of the
    /// server for them (the ceiling for the bulk path). `extra` gives each row's further columns after `id` and
    /// `body`, each in its binary form (`nil`: SQL NULL), for `columns`.
    func copy(
        _ rows: [(id: String, body: String)], into table: String = "c_people", columns: String = "(id, body)",
        extra: (Int) -> [[UInt8]?] = { _ in [] }
    ) {
        exec("BEGIN")
        let result = PQexec(connection, "COPY \(table) \(columns) FROM STDIN (FORMAT binary)")
        guard PQresultStatus(result) == PGRES_COPY_IN else { fatalError(String(cString: PQerrorMessage(connection))) }
        PQclear(result)
        // The signature, no flags, no extension; then each row: its field count, then each field a length and its
        // bytes (jsonb's binary form is a version byte, 1, then the text; -1 is NULL); then -1.
        var data = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        func put(_ last: Bool) {
            if last { data += [0xFF, 0xFF] }
            guard data.count >= 1 << 16 || last else { return }
            let sent = data.withUnsafeBytes {
                PQputCopyData(connection, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
            }
            guard sent == 1 else { fatalError(String(cString: PQerrorMessage(connection))) }
            data.removeAll(keepingCapacity: true)
        }
        for (index, (id, body)) in rows.enumerated() {
            let fields = extra(index)
            withUnsafeBytes(of: UInt16(2 + fields.count).bigEndian) { data += $0 }
            withUnsafeBytes(of: UInt32(id.utf8.count).bigEndian) { data += $0 }
            data += id.utf8
            withUnsafeBytes(of: UInt32(body.utf8.count + 1).bigEndian) { data += $0 }
            data.append(1)
            data += body.utf8
            for field in fields {
                withUnsafeBytes(of: (field.map { UInt32($0.count) } ?? UInt32.max).bigEndian) { data += $0 }
                data += field ?? []
            }
            put(false)
        }
        put(true)
        guard PQputCopyEnd(connection, nil) == 1 else { fatalError(String(cString: PQerrorMessage(connection))) }
        while let answer = PQgetResult(connection) {
            if PQresultStatus(answer) != PGRES_COMMAND_OK { fatalError(String(cString: PQerrorMessage(connection))) }
            PQclear(answer)
        }
        exec("COMMIT")
    }

    /// The first value of a query's answer.
    func value(_ sql: String) -> String {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) > 0 else {
            fatalError(String(cString: PQerrorMessage(connection)))
        }
        return String(cString: PQgetvalue(result, 0, 0))
    }
    func run(_ name: String, _ values: [String]) -> Int {
        var pointers = values.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        let result = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                PQexecPrepared(connection, name, Int32(values.count), $0.baseAddress, nil, nil, 0)
            }
        }
        defer { PQclear(result) }
        // Touch the value, as a client that reads it would.
        return PQntuples(result) > 0 ? Int(PQgetlength(result, 0, 0)) : 0
    }
}

// MARK: The server

/// The server in STRATA_POSTGRES_URL, or a throwaway one started with Scripts/postgres.sh: its URL, and how to
/// stop it (nothing for a server that was already running).
func startServer() throws -> (url: String, stop: () -> Void) {
    let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] ?? ""
    if !url.isEmpty { return (url, {}) }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Scripts/postgres.sh"
    ).standardized.path
    var started: [String: String] = [:]
    for line in try Bench.shell("bash '\(script)' start").split(separator: "\n") {
        // export NAME='value'
        let parts = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { continue }
        started[String(parts[0])] = String(parts[1].dropFirst().dropLast())
    }
    guard let startedURL = started["STRATA_POSTGRES_URL"], let dir = started["STRATA_POSTGRES_DIR"] else {
        fatalError("could not start a PostgreSQL server (see Scripts/postgres.sh)")
    }
    return (startedURL, { _ = try? Bench.shell("STRATA_POSTGRES_DIR='\(dir)' bash '\(script)' stop") })
}

// MARK: The workload

func measure(_ collection: RecordCollection<Person>, people: [Person], ids: [String], sizes: Sizes) throws
    -> [String: Double]
{
    var times: [String: Double] = [:]
    times["insert"] = try Bench.time { try collection.insert(contentsOf: people) }
    times["get"] = try Bench.best(of: 3) { for id in ids { _ = try collection.get(id: id) } }
    times["range"] = try Bench.best(of: 5) {
        _ = try collection.fetch(where: Field("age") >= 30 && Field("age") < 32)
    }
    times["count"] = try Bench.best(of: 5) { _ = try collection.count(where: Field("tags").contains("even")) }
    times["durable"] = try Bench.time {
        for index in 0..<sizes.durableCount {
            var changed = people[index]
            changed.age += 1
            try collection.upsert(changed)
        }
    }
    // Four threads, each upserting its own records in single-record transactions.
    times["concurrent"] = Bench.time {
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<(sizes.durableCount / 4) {
                var changed = people[thread * 10_000 % sizes.count + index]
                changed.name = "writer \(thread)"
                try! collection.upsert(changed)
            }
        }
    }
    return times
}

/// Median and range of repeated timings, with the client's and the server's CPU time of each.
struct Rounds {
    var times: [Double] = []
    var client: [Double] = []
    var server: [Double] = []

    mutating func append(_ sample: CPUSplit.Sample) {
        times.append(sample.wall)
        client.append(sample.client)
        if let seconds = sample.server { server.append(seconds) }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var median: Double { Self.median(times) }

    /// The wall time's median and range per record, then the CPU medians per record: the client's (this
    /// process; left out for another program, `hasClient` false) and the server's (when it runs on this machine).
    func describe(per count: Int, hasClient: Bool = true) -> String {
        var text =
            "median \(Bench.perOperation(median, count)) per record, range \(Bench.perOperation(times.min() ?? 0, count))"
            + " – \(Bench.perOperation(times.max() ?? 0, count)) over \(times.count) rounds"
        if hasClient { text += "; CPU: client \(Bench.perOperation(Self.median(client), count))" }
        if !server.isEmpty {
            text += (hasClient ? ", " : "; CPU: ") + "server \(Bench.perOperation(Self.median(server), count))"
        }
        return text
    }
}

/// A CSV field, quoted.
func csvField(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

/// `--profile insert|import`: one transaction of the 20,000 inserts, or one import of them, and nothing else, so
/// that `valgrind --tool=callgrind` or `perf` sees the client's work on the bulk path alone. `--profile
/// get|upsert|raw-get|raw-upsert|raw-upsert-notify [--ops N]`: N point gets (default 2,000) or N upserts (each its
/// own transaction) of the 5,000 records, through Strata or raw libpq (`raw-upsert-notify`: with the `NOTIFY` a
/// single Strata write sends in its statement), after the same setup, with the client's and the server's CPU per
/// operation: the difference of two runs with different N under callgrind is the client's work per operation.
func profile(_ mode: String, url: String) throws {
    if ["get", "upsert", "raw-get", "raw-upsert", "raw-upsert-notify"].contains(mode) {
        return try profileSingle(mode, url: url)
    }
    let count = Sizes().bulkCount
    let everyone = (0..<count).map(person)
    let configuration = PostgresConfiguration(connectionString: url, schema: "bench_profile_\(getpid())")
    let store = try PostgresRecordEngine.store(configuration)
    defer { _ = try? PostgresRecordEngine.dropStore(configuration) }
    let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
    let seconds: Double
    switch mode {
    case "insert": seconds = try Bench.time { try people.insert(contentsOf: everyone) }
    case "import":
        let folder = try Bench.temporaryFolder("postgres-profile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try (everyone.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) + "\n" }.joined()).write(
            toFile: folder + "/people.jsonl", atomically: true, encoding: .utf8)
        seconds = try Bench.time { try people.importJSONLines(from: folder + "/people.jsonl") }
    default: fatalError("--profile takes insert or import")
    }
    print("\(mode): \(count) records, \(Bench.perOperation(seconds, count)) per record")
}

/// One mode of `--profile get|upsert|raw-get|raw-upsert` (see ``profile(_:url:)``).
func profileSingle(_ mode: String, url: String) throws {
    let count = 5_000
    let operations =
        CommandLine.arguments.firstIndex(of: "--ops").flatMap {
            CommandLine.arguments.indices.contains($0 + 1) ? Int(CommandLine.arguments[$0 + 1]) : nil
        } ?? 2_000
    let everyone = (0..<count).map(person)
    let ids = (0..<operations).map { everyone[($0 * 7919) % count].id }
    let raw = RawPostgres(url)
    defer { raw.close() }
    let split = CPUSplit(backend: Int32(raw.value("SELECT pg_backend_pid()")) ?? 0)
    let sample: CPUSplit.Sample
    if mode.hasPrefix("raw-") {
        let bodies = try everyone.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let keys = everyone.map {
            String(decoding: PostgresIndexKey.hex(LayoutComparison.orderedKey($0.age)), as: UTF8.self)
        }
        raw.exec("BEGIN")
        for index in 0..<count { _ = raw.run("insert", [everyone[index].id, bodies[index], keys[index]]) }
        raw.exec("COMMIT")
        // The upsert with Strata's announcement of the change, in the same statement, as a single write sends it.
        raw.prepare(
            "upsert-notify",
            "WITH w AS (INSERT INTO c_people (id, body, k__age) VALUES ($1::text, $2::jsonb, $3::bytea) ON CONFLICT (id) DO UPDATE SET body = excluded.body, k__age = excluded.k__age RETURNING 1) SELECT pg_notify($4::text, $5::text) FROM w"
        )
        sample = split.measure {
            for index in 0..<operations {
                let record = (index * 7919) % count
                switch mode {
                case "raw-get": _ = raw.run("get", [ids[index]])
                case "raw-upsert-notify":
                    _ = raw.run(
                        "upsert-notify",
                        [everyone[record].id, bodies[record], keys[record], "strata_bench", "x people"])
                default: _ = raw.run("upsert", [everyone[record].id, bodies[record], keys[record]])
                }
            }
        }
    } else {
        let configuration = PostgresConfiguration(connectionString: url, schema: "bench_profile_\(getpid())")
        let store = try PostgresRecordEngine.store(configuration)
        defer { _ = try? PostgresRecordEngine.dropStore(configuration) }
        let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
        try people.insert(contentsOf: everyone)
        sample = try split.measure {
            for index in 0..<operations {
                if mode == "get" {
                    _ = try people.get(id: ids[index])
                } else {
                    try people.upsert(everyone[(index * 7919) % count])
                }
            }
        }
    }
    print(
        "\(mode): \(operations) operations, \(Bench.perOperation(sample.wall, operations)) each; CPU: client "
            + Bench.perOperation(sample.client, operations)
            + (sample.server.map { ", server " + Bench.perOperation($0, operations) } ?? ""))
}

func run() throws {
    let sizes = Sizes()
    if let flag = CommandLine.arguments.firstIndex(of: "--profile"), flag + 1 < CommandLine.arguments.count {
        let (url, stopServer) = try startServer()
        defer { stopServer() }
        return try profile(CommandLine.arguments[flag + 1], url: url)
    }
    if CommandLine.arguments.contains("--layouts") {
        let (url, stopServer) = try startServer()
        defer { stopServer() }
        let raw = RawPostgres(url)
        defer { raw.close() }
        return LayoutComparison.run(raw, rounds: sizes.rounds)
    }
    let count = sizes.count
    let (url, stopServer) = try startServer()
    defer { stopServer() }
    let bulkCount = sizes.bulkCount
    let bodies = try (0..<bulkCount).map {
        (person($0).id, String(decoding: try JSONEncoder().encode(person($0)), as: UTF8.self))
    }
    // The key of each record's `age`, for the raw baselines: as bytes (binary COPY) and as text (`\x…`).
    let keys = (0..<bulkCount).map { LayoutComparison.orderedKey(person($0).age) }
    let keyTexts = keys.map { String(decoding: PostgresIndexKey.hex($0), as: UTF8.self) }
    let folder = try Bench.temporaryFolder("postgres")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let schema = "bench_\(getpid())"
    let configuration = PostgresConfiguration(connectionString: url, schema: schema)
    let postgres = try PostgresRecordEngine.store(configuration)
    let sqlite = try RecordStore(path: folder + "/bench.sqlite")
    let pgPeople = try postgres.collection(Person.self, named: "people", indexes: [.field("age")])
    let sqlitePeople = try sqlite.collection(Person.self, named: "people", indexes: [.field("age")])
    let raw = RawPostgres(url)
    defer { raw.close() }
    let everyone = (0..<bulkCount).map(person)
    let people = Array(everyone.prefix(count))
    let ids = (0..<count).map { person(($0 * 7919) % count).id }

    print(
        "Strata records on PostgreSQL (loopback) vs raw libpq vs Strata on SQLite, \(count) records\(sizes.quick ? " (quick)" : "")\n"
    )
    print("connections \((postgres.engine as? PostgresRecordEngine)?.usesTLS == true ? "over TLS" : "in plain text")\n")
    let pg = try measure(pgPeople, people: people, ids: ids, sizes: sizes)
    let lite = try measure(sqlitePeople, people: people, ids: ids, sizes: sizes)

    var rawTimes: [String: Double] = [:]
    rawTimes["insert"] = Bench.time {
        raw.exec("BEGIN")
        for (index, (id, body)) in bodies.prefix(count).enumerated() {
            _ = raw.run("insert", [id, body, keyTexts[index]])
        }
        raw.exec("COMMIT")
    }
    rawTimes["get"] = Bench.best(of: 3) { for id in ids { _ = raw.run("get", [id]) } }
    // The change Strata's upserts make (``measure``: each record's age one more), so that both sides change the
    // indexed field: a row written back unchanged is updated in place, and its index is not touched.
    let durableChanges = try (0..<sizes.durableCount).map { index -> [String] in
        var changed = person(index)
        changed.age += 1
        let key = PostgresIndexKey.hex(LayoutComparison.orderedKey(changed.age))
        return [
            changed.id, String(decoding: try JSONEncoder().encode(changed), as: UTF8.self),
            String(decoding: key, as: UTF8.self),
        ]
    }
    rawTimes["durable"] = Bench.time { for change in durableChanges { _ = raw.run("upsert", change) } }

    // Rounds, interleaved: inserts in one transaction (Strata, raw libpq one statement at a time), and the JSON
    // Lines import (Strata, psql's \copy of the same rows).
    let lines = folder + "/people.jsonl"
    try (everyone.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) + "\n" }.joined()).write(
        toFile: lines, atomically: true, encoding: .utf8)
    let csv = folder + "/people.csv"
    try bodies.indices.map { csvField(bodies[$0].0) + "," + csvField(bodies[$0].1) + "," + keyTexts[$0] + "\n" }
        .joined().write(
            toFile: csv, atomically: true, encoding: .utf8)
    let split = CPUSplit(backend: Int32(raw.value("SELECT pg_backend_pid()")) ?? 0)
    var strataInsert = Rounds()
    var strataBare = Rounds()
    var rawInsert = Rounds()
    var rawCopy = Rounds()
    var strataImport = Rounds()
    var psqlCopy = Rounds()
    // Point gets and single-record upserts, Strata and raw libpq alternated within each round (which goes first
    // alternates too), with the CPU time of each side: both upsert the same changed records (the age moves, so
    // the index on it changes on both).
    var strataGets = Rounds()
    var rawGets = Rounds()
    var strataUpserts = Rounds()
    var rawUpserts = Rounds()
    for round in 0..<sizes.rounds {
        let changed = (0..<sizes.durableCount).map {
            var record = person($0)
            record.age += 2 + round
            return record
        }
        let changedBodies = try changed.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let changedKeys = changed.map {
            String(decoding: PostgresIndexKey.hex(LayoutComparison.orderedKey($0.age)), as: UTF8.self)
        }
        let sides: [() throws -> Void] = [
            {
                strataGets.append(try split.measure { for id in ids { _ = try pgPeople.get(id: id) } })
                strataUpserts.append(try split.measure { for record in changed { try pgPeople.upsert(record) } })
            },
            {
                rawGets.append(split.measure { for id in ids { _ = raw.run("get", [id]) } })
                rawUpserts.append(
                    split.measure {
                        for index in changed.indices {
                            _ = raw.run("upsert", [changed[index].id, changedBodies[index], changedKeys[index]])
                        }
                    })
            },
        ]
        for side in round % 2 == 0 ? sides : sides.reversed() { try side() }
    }
    for round in 0..<sizes.rounds {
        let inserted = try postgres.collection(Person.self, named: "insert\(round)", indexes: [.field("age")])
        strataInsert.append(try split.measure { try inserted.insert(contentsOf: everyone) })
        raw.exec("TRUNCATE c_people")
        rawCopy.append(split.measure { raw.copy(bodies, columns: "(id, body, k__age)") { [keys[$0]] } })
        // The same inserts into a collection without the index on age: the index's share of the server's work.
        let bare = try postgres.collection(Person.self, named: "bare\(round)")
        strataBare.append(try split.measure { try bare.insert(contentsOf: everyone) })
        raw.exec("TRUNCATE c_people")
        rawInsert.append(
            split.measure {
                raw.exec("BEGIN")
                for (index, (id, body)) in bodies.enumerated() { _ = raw.run("insert", [id, body, keyTexts[index]]) }
                raw.exec("COMMIT")
            })
        let imported = try postgres.collection(Person.self, named: "import\(round)", indexes: [.field("age")])
        strataImport.append(try split.measure { try imported.importJSONLines(from: lines) })
        raw.exec(
            #"CREATE TABLE c_copy\#(round) (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL, k__age bytea NOT NULL)"#
        )
        raw.exec("CREATE INDEX i_copy\(round)_age ON c_copy\(round) (k__age)")
        psqlCopy.append(
            try split.measure {
                try Bench.shell(
                    "psql -q -X '\(url)' -c \"\\\\copy raw_bench.c_copy\(round) (id, body, k__age) FROM '\(csv)' WITH (FORMAT csv)\""
                )
            })
    }
    guard try postgres.collection(Person.self, named: "import0").count() == bulkCount,
        try postgres.collection(Person.self, named: "insert0").count() == bulkCount,
        try postgres.collection(Person.self, named: "bare0").count() == bulkCount,
        (try Bench.shell("psql -At -X '\(url)' -c 'SELECT count(*) FROM raw_bench.c_copy0'")).hasPrefix(
            String(bulkCount))
    else { fatalError("the import or the \\copy did not store every row") }

    Comparison.printTable(
        [
            Comparison(
                "\(bulkCount) inserts, one transaction (median)", operations: bulkCount,
                strata: strataInsert.median, baseline: rawInsert.median),
            Comparison("\(count) point gets", operations: count, strata: pg["get"]!, baseline: rawTimes["get"]!),
            Comparison(
                "\(sizes.durableCount) upserts, one transaction each", operations: sizes.durableCount,
                strata: pg["durable"]!, baseline: rawTimes["durable"]!),
        ], baselineName: "raw libpq", ratioName: "raw/Strata")
    // One-row tables: the bulk rows against their ceiling and against the tool a user would pick.
    func bulkRow(_ name: String, strata: Rounds, baseline: Rounds, _ baselineName: String, _ ratioName: String) {
        print()
        Comparison.printTable(
            [Comparison(name, operations: bulkCount, strata: strata.median, baseline: baseline.median)],
            baselineName: baselineName, ratioName: ratioName)
    }
    bulkRow(
        "\(bulkCount) inserts, one transaction, vs COPY (median)", strata: strataInsert, baseline: rawCopy,
        "raw COPY", "raw/Strata")
    bulkRow(
        "JSON Lines import, \(bulkCount) records (median)", strata: strataImport, baseline: psqlCopy, "psql \\copy",
        "psql/Strata")
    print()
    print("inserts, one transaction:   Strata     \(strataInsert.describe(per: bulkCount))")
    print("                            raw libpq  \(rawInsert.describe(per: bulkCount))  (a statement at a time)")
    print("                            raw COPY   \(rawCopy.describe(per: bulkCount))  (binary, the ceiling)")
    print("  without the index on age: Strata     \(strataBare.describe(per: bulkCount))")
    /// raw/Strata of the medians, and the median and range of the rounds' own ratios (each round's two sides ran
    /// next to each other, so their ratio is the steadier figure on a busy machine).
    func ratios(_ raw: Rounds, _ strata: Rounds) -> String {
        let each = zip(raw.times, strata.times).map { $0 / $1 }
        return String(
            format: "raw/Strata of the medians %.2f×; of each round: median %.2f×, range %.2f–%.2f×",
            raw.median / strata.median, Rounds.median(each), each.min() ?? 0, each.max() ?? 0)
    }
    print("point gets, paired rounds:  Strata     \(strataGets.describe(per: count))")
    print("                            raw libpq  \(rawGets.describe(per: count))")
    print("                            \(ratios(rawGets, strataGets))")
    print("upserts, paired rounds:     Strata     \(strataUpserts.describe(per: sizes.durableCount))")
    print("                            raw libpq  \(rawUpserts.describe(per: sizes.durableCount))")
    print("                            \(ratios(rawUpserts, strataUpserts))")
    print("JSON Lines import:          Strata     \(strataImport.describe(per: bulkCount))")
    print("                            psql \\copy \(psqlCopy.describe(per: bulkCount, hasClient: false))")
    let perRecord = strataInsert.median / Double(bulkCount)
    print(
        "target for the inserts: at most 10 µs per record over loopback; median \(Bench.perOperation(strataInsert.median, bulkCount)): "
            + (perRecord <= 10e-6 ? "met" : "not met"))
    if !rawCopy.server.isEmpty {
        // The floor: what the server spends on these rows when a client does nothing but hand them over.
        print(
            "the server's CPU for a binary COPY of the same rows (no client can ask less of it): "
                + "\(Bench.perOperation(Rounds.median(rawCopy.server), bulkCount)) per record, "
                + "\(Bench.perOperation(Rounds.median(strataBare.server), bulkCount)) for Strata's inserts without the index"
        )
    }
    print()
    Comparison.printTable(
        [
            Comparison(
                "\(count) inserts, one transaction", operations: count, strata: pg["insert"]!, baseline: lite["insert"]!
            ),
            Comparison("\(count) point gets", operations: count, strata: pg["get"]!, baseline: lite["get"]!),
            Comparison("indexed range (age 30-31)", operations: 1, strata: pg["range"]!, baseline: lite["range"]!),
            Comparison(
                "count, array contains (full scan)", operations: 1, strata: pg["count"]!, baseline: lite["count"]!),
            Comparison(
                "\(sizes.durableCount) upserts, one transaction each", operations: sizes.durableCount,
                strata: pg["durable"]!, baseline: lite["durable"]!),
            Comparison(
                "4 threads x \(sizes.durableCount / 4) upserts", operations: sizes.durableCount,
                strata: pg["concurrent"]!,
                baseline: lite["concurrent"]!),
        ], baselineName: "SQLite", ratioName: "SQLite/PG")

    print("\n(SQLite/PG above 1.0x: PostgreSQL is faster. A transaction's writes go out in libpq's pipeline mode,")
    print("one round trip per read and one for the commit; every commit waits for the server's WAL flush, as")
    print("SQLite's synchronous=FULL waits for its fsync.)")
    _ = try PostgresRecordEngine.dropStore(configuration)
}

try run()
