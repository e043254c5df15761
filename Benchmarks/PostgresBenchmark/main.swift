// The records workload on PostgreSQL over loopback, beside the same workload on SQLite, and beside raw libpq
// (prepared statements, the same table and pre-serialized JSON: the ceiling for any PostgreSQL client), in one run.
//
//   swift run -c release strata-bench-postgres [--quick] [--rounds N]
//
// The inserts in one transaction and the JSON Lines import, of 20,000 records (with --quick too; the rest uses
// 5,000 with --quick), run N rounds (default 5), Strata and its baselines
// interleaved, and report the median and the range: the import against `psql \copy` of the same rows, the tool a
// user would otherwise pick.
//
// It uses the server in STRATA_POSTGRES_URL, or starts a throwaway one with Scripts/postgres.sh and stops it.
import BenchmarkKit
import CLibPQ
import Foundation
import StrataPostgres
import StrataRecords

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
        exec(#"CREATE TABLE c_people (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)"#)
        exec("CREATE INDEX i_people_age ON c_people ((NULLIF(body->'age', 'null'::jsonb)))")
        prepare("insert", "INSERT INTO c_people (id, body) VALUES ($1::text, $2::jsonb)")
        prepare("get", "SELECT body FROM c_people WHERE id = $1::text")
        prepare(
            "upsert",
            "INSERT INTO c_people (id, body) VALUES ($1::text, $2::jsonb) ON CONFLICT (id) DO UPDATE SET body = excluded.body"
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

/// Median and range of repeated timings.
struct Rounds {
    var times: [Double] = []
    var median: Double {
        let sorted = times.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    func describe(per count: Int) -> String {
        "median \(Bench.perOperation(median, count)) per record, range \(Bench.perOperation(times.min() ?? 0, count))"
            + " – \(Bench.perOperation(times.max() ?? 0, count)) over \(times.count) rounds"
    }
}

/// A CSV field, quoted.
func csvField(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

func run() throws {
    let sizes = Sizes()
    let count = sizes.count
    let (url, stopServer) = try startServer()
    defer { stopServer() }
    let bulkCount = sizes.bulkCount
    let bodies = try (0..<bulkCount).map {
        (person($0).id, String(decoding: try JSONEncoder().encode(person($0)), as: UTF8.self))
    }
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
        for (id, body) in bodies.prefix(count) { _ = raw.run("insert", [id, body]) }
        raw.exec("COMMIT")
    }
    rawTimes["get"] = Bench.best(of: 3) { for id in ids { _ = raw.run("get", [id]) } }
    rawTimes["durable"] = Bench.time {
        for (id, body) in bodies.prefix(sizes.durableCount) { _ = raw.run("upsert", [id, body]) }
    }

    // Rounds, interleaved: inserts in one transaction (Strata, raw libpq one statement at a time), and the JSON
    // Lines import (Strata, psql's \copy of the same rows).
    let lines = folder + "/people.jsonl"
    try (everyone.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) + "\n" }.joined()).write(
        toFile: lines, atomically: true, encoding: .utf8)
    let csv = folder + "/people.csv"
    try bodies.map { csvField($0.0) + "," + csvField($0.1) + "\n" }.joined().write(
        toFile: csv, atomically: true, encoding: .utf8)
    var strataInsert = Rounds()
    var rawInsert = Rounds()
    var strataImport = Rounds()
    var psqlCopy = Rounds()
    for round in 0..<sizes.rounds {
        let inserted = try postgres.collection(Person.self, named: "insert\(round)", indexes: [.field("age")])
        strataInsert.times.append(try Bench.time { try inserted.insert(contentsOf: everyone) })
        raw.exec("TRUNCATE c_people")
        rawInsert.times.append(
            Bench.time {
                raw.exec("BEGIN")
                for (id, body) in bodies { _ = raw.run("insert", [id, body]) }
                raw.exec("COMMIT")
            })
        let imported = try postgres.collection(Person.self, named: "import\(round)", indexes: [.field("age")])
        strataImport.times.append(try Bench.time { try imported.importJSONLines(from: lines) })
        raw.exec(#"CREATE TABLE c_copy\#(round) (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)"#)
        raw.exec("CREATE INDEX i_copy\(round)_age ON c_copy\(round) ((NULLIF(body->'age', 'null'::jsonb)))")
        psqlCopy.times.append(
            try Bench.time {
                try Bench.shell(
                    "psql -q -X '\(url)' -c \"\\\\copy raw_bench.c_copy\(round) (id, body) FROM '\(csv)' WITH (FORMAT csv)\""
                )
            })
    }
    guard try postgres.collection(Person.self, named: "import0").count() == bulkCount,
        try postgres.collection(Person.self, named: "insert0").count() == bulkCount,
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
    print()
    Comparison.printTable(
        [
            Comparison(
                "JSON Lines import, \(bulkCount) records (median)", operations: bulkCount,
                strata: strataImport.median, baseline: psqlCopy.median)
        ], baselineName: "psql \\copy", ratioName: "psql/Strata")
    print()
    print("inserts, one transaction:   Strata     \(strataInsert.describe(per: bulkCount))")
    print("                            raw libpq  \(rawInsert.describe(per: bulkCount))")
    print("JSON Lines import:          Strata     \(strataImport.describe(per: bulkCount))")
    print("                            psql \\copy \(psqlCopy.describe(per: bulkCount))")
    let perRecord = strataInsert.median / Double(bulkCount)
    print(
        "target for the inserts: at most 10 µs per record over loopback; median \(Bench.perOperation(strataInsert.median, bulkCount)): "
            + (perRecord <= 10e-6 ? "met" : "not met"))
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
