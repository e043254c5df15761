// The records workload on PostgreSQL over loopback, beside the same workload on SQLite, and beside raw libpq
// (prepared statements, the same table and pre-serialized JSON: the ceiling for any PostgreSQL client), in one run.
//
//   swift run -c release strata-bench-postgres [--quick]
//
// It uses the server in STRATA_POSTGRES_URL, or starts a throwaway one with Scripts/postgres.sh and stops it.
import BenchmarkKit
import CLibPQ
import Foundation
import StrataPostgres
import StrataRecords

let quick = CommandLine.arguments.contains("--quick")
let count = quick ? 5_000 : 20_000
let durableCount = quick ? 200 : 1_000

// MARK: The server

var startedServer: [String: String] = [:]
var url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] ?? ""
if url.isEmpty {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Scripts/postgres.sh"
    ).standardized.path
    for line in try Bench.shell("bash '\(script)' start").split(separator: "\n") {
        // export NAME='value'
        let parts = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { continue }
        startedServer[String(parts[0])] = String(parts[1].dropFirst().dropLast())
    }
    url = startedServer["STRATA_POSTGRES_URL"] ?? ""
    guard !url.isEmpty else { fatalError("could not start a PostgreSQL server (see Scripts/postgres.sh)") }
    startedServer["script"] = script
}
@MainActor func stopServer() {
    guard let script = startedServer["script"], let dir = startedServer["STRATA_POSTGRES_DIR"] else { return }
    _ = try? Bench.shell("STRATA_POSTGRES_DIR='\(dir)' bash '\(script)' stop")
}

// MARK: Raw libpq, the ceiling

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

// MARK: The workload

let bodies = try (0..<count).map {
    (person($0).id, String(decoding: try JSONEncoder().encode(person($0)), as: UTF8.self))
}
let folder = try Bench.temporaryFolder("postgres")
let schema = "bench_\(getpid())"
let postgres = try PostgresRecordEngine.store(PostgresConfiguration(connectionString: url, schema: schema))
let sqlite = try RecordStore(path: folder + "/bench.sqlite")
let pgPeople = try postgres.collection(Person.self, named: "people", indexes: [.field("age")])
let sqlitePeople = try sqlite.collection(Person.self, named: "people", indexes: [.field("age")])
let raw = RawPostgres(url)
let people = (0..<count).map(person)
let ids = (0..<count).map { person(($0 * 7919) % count).id }

func measure(_ collection: RecordCollection<Person>, store: RecordStore) throws -> [String: Double] {
    var times: [String: Double] = [:]
    times["insert"] = try Bench.time { try collection.insert(contentsOf: people) }
    times["get"] = try Bench.best(of: 3) { for id in ids { _ = try collection.get(id: id) } }
    times["range"] = try Bench.best(of: 5) {
        _ = try collection.fetch(where: Field("age") >= 30 && Field("age") < 32)
    }
    times["count"] = try Bench.best(of: 5) { _ = try collection.count(where: Field("tags").contains("even")) }
    times["durable"] = try Bench.time {
        for index in 0..<durableCount {
            var changed = people[index]
            changed.age += 1
            try collection.upsert(changed)
        }
    }
    // Four threads, each upserting its own records in single-record transactions.
    times["concurrent"] = Bench.time {
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<(durableCount / 4) {
                var changed = people[thread * 10_000 % count + index]
                changed.name = "writer \(thread)"
                try! collection.upsert(changed)
            }
        }
    }
    return times
}

print(
    "Strata records on PostgreSQL (loopback) vs raw libpq vs Strata on SQLite, \(count) records\(quick ? " (quick)" : "")\n"
)
print("connections \((postgres.engine as? PostgresRecordEngine)?.usesTLS == true ? "over TLS" : "in plain text")\n")
let pg = try measure(pgPeople, store: postgres)
let lite = try measure(sqlitePeople, store: sqlite)

var rawTimes: [String: Double] = [:]
rawTimes["insert"] = Bench.time {
    raw.exec("BEGIN")
    for (id, body) in bodies { _ = raw.run("insert", [id, body]) }
    raw.exec("COMMIT")
}
rawTimes["get"] = Bench.best(of: 3) { for id in ids { _ = raw.run("get", [id]) } }
rawTimes["durable"] = Bench.time {
    for (id, body) in bodies.prefix(durableCount) { _ = raw.run("upsert", [id, body]) }
}

Comparison.printTable(
    [
        Comparison(
            "\(count) inserts, one transaction", operations: count, strata: pg["insert"]!, baseline: rawTimes["insert"]!
        ),
        Comparison("\(count) point gets", operations: count, strata: pg["get"]!, baseline: rawTimes["get"]!),
        Comparison(
            "\(durableCount) upserts, one transaction each", operations: durableCount, strata: pg["durable"]!,
            baseline: rawTimes["durable"]!),
    ], baselineName: "raw libpq", ratioName: "raw/Strata")
print()
Comparison.printTable(
    [
        Comparison(
            "\(count) inserts, one transaction", operations: count, strata: pg["insert"]!, baseline: lite["insert"]!),
        Comparison("\(count) point gets", operations: count, strata: pg["get"]!, baseline: lite["get"]!),
        Comparison("indexed range (age 30-31)", operations: 1, strata: pg["range"]!, baseline: lite["range"]!),
        Comparison("count, array contains (full scan)", operations: 1, strata: pg["count"]!, baseline: lite["count"]!),
        Comparison(
            "\(durableCount) upserts, one transaction each", operations: durableCount, strata: pg["durable"]!,
            baseline: lite["durable"]!),
        Comparison(
            "4 threads x \(durableCount / 4) upserts", operations: durableCount, strata: pg["concurrent"]!,
            baseline: lite["concurrent"]!),
    ], baselineName: "SQLite", ratioName: "SQLite/PG")

print("\n(SQLite/PG above 1.0x: PostgreSQL is faster. Every PostgreSQL operation is a round trip over loopback,")
print("and every commit waits for the server's WAL flush, as SQLite's synchronous=FULL waits for its fsync.)")

raw.close()
_ = try PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: url, schema: schema))
try? FileManager.default.removeItem(atPath: folder)
stopServer()
