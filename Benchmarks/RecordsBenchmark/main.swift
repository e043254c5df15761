// StrataRecords against the raw SQLite C API (same schema, same pragmas, pre-serialized JSON), against a JSON
// array file rewritten on every save, and against Python's sqlite3 + json, in one run on the same payloads.
//
//   swift run -c release strata-bench-records [--quick]
import BenchmarkKit
import CSQLite
import Foundation
import StrataRecords

let quick = CommandLine.arguments.contains("--quick")

let folder = try Bench.temporaryFolder("records")
defer { try? FileManager.default.removeItem(atPath: folder) }

// MARK: Raw SQLite, the ceiling

final class Raw {
    var db: OpaquePointer?
    init(_ path: String) {
        sqlite3_open(path, &db)
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        exec("CREATE TABLE c_people (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID")
        exec("CREATE INDEX i_people_age ON c_people(json_extract(body, '$.age'))")
    }
    deinit { sqlite3_close(db) }
    func exec(_ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }
    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        return statement
    }
    func insert(_ rows: [(String, [UInt8])]) {
        let statement = prepare("INSERT INTO c_people (id, body) VALUES (?, ?)")
        exec("BEGIN")
        for (id, body) in rows {
            sqlite3_bind_text(statement, 1, id, -1, strata_sqlite_transient())
            _ = body.withUnsafeBytes {
                sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), strata_sqlite_transient())
            }
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
        exec("COMMIT")
        sqlite3_finalize(statement)
    }
    func get(_ ids: [String]) -> Int {
        let statement = prepare("SELECT body FROM c_people WHERE id = ?")
        var total = 0
        for id in ids {
            sqlite3_bind_text(statement, 1, id, -1, strata_sqlite_transient())
            if sqlite3_step(statement) == SQLITE_ROW {
                let bytes = [UInt8](
                    UnsafeRawBufferPointer(
                        start: sqlite3_column_text(statement, 0), count: Int(sqlite3_column_bytes(statement, 0))))
                total += bytes.count
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        return total
    }
    func query(_ sql: String, _ bind: Int64?) -> Int {
        let statement = prepare(sql)
        if let bind { sqlite3_bind_int64(statement, 1, bind) }
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = [UInt8](
                UnsafeRawBufferPointer(
                    start: sqlite3_column_text(statement, 0), count: Int(sqlite3_column_bytes(statement, 0))))
            rows += 1
        }
        sqlite3_finalize(statement)
        return rows
    }
}

struct Timing {
    var insert = 0.0, get = 0.0, range = 0.0, scan = 0.0, rangeRows = 0, scanRows = 0
}

func runStrata(_ count: Int, gets: [String]) throws -> Timing {
    let path = folder + "/strata-\(count)-\(UInt32.random(in: 0...UInt32.max)).sqlite"
    let store = try RecordStore(path: path)
    let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
    let records = (0..<count).map(person)
    var timing = Timing()
    timing.insert = try Bench.time { try people.insert(contentsOf: records) }
    var sink = 0
    timing.get = try Bench.time { for id in gets { sink &+= try people.get(id: id)?.age ?? 0 } }
    timing.range = try Bench.time {
        timing.rangeRows = try people.fetch(where: Field("age") >= 30 && Field("age") < 32).count
    }
    timing.scan = try Bench.time {
        timing.scanRows = try people.fetch(where: Field("name").hasPrefix("Person Number 1")).count
    }
    return timing
}

func runRaw(_ count: Int, gets: [String]) throws -> Timing {
    let raw = Raw(folder + "/raw-\(count).sqlite")
    // The raw ceiling is handed the JSON already made (Foundation's encoding is not timed).
    let encoder = JSONEncoder()
    let rows = try (0..<count).map { index -> (String, [UInt8]) in
        let record = person(index)
        return (record.id, [UInt8](try encoder.encode(record)))
    }
    var timing = Timing()
    timing.insert = Bench.time { raw.insert(rows) }
    var sink = 0
    timing.get = Bench.time { sink &+= raw.get(gets) }
    timing.range = Bench.time {
        timing.rangeRows = raw.query(
            "SELECT body FROM c_people WHERE json_extract(body, '$.age') >= 30 AND json_extract(body, '$.age') < 32 ORDER BY id",
            nil)
    }
    timing.scan = Bench.time {
        timing.scanRows = raw.query(
            "SELECT body FROM c_people WHERE json_extract(body, '$.name') >= 'Person Number 1' AND json_extract(body, '$.name') < 'Person Number 1\u{10FFFF}' ORDER BY id",
            nil)
    }
    return timing
}

func runPython(_ count: Int, gets: Int) throws -> Timing? {
    let script = """
        import json, sqlite3, sys, time
        n, g, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE c_people (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID")
        db.execute("CREATE INDEX i_people_age ON c_people(json_extract(body, '$.age'))")
        def person(i):
            return {"id": "person-%07d" % i, "name": "Person Number %d Lastname" % i, "email": "person%d@example.com" % i,
                    "age": 18 + i % 70, "tags": ["tag%d" % (i % 7), "group%d" % (i % 13), "even" if i % 2 == 0 else "odd"]}
        t = time.perf_counter()
        db.execute("BEGIN")
        db.executemany("INSERT INTO c_people (id, body) VALUES (?, ?)", ((p["id"], json.dumps(p)) for p in map(person, range(n))))
        db.execute("COMMIT")
        insert = time.perf_counter() - t
        ids = ["person-%07d" % ((i * 7919) % n) for i in range(g)]
        t = time.perf_counter()
        for i in ids:
            json.loads(db.execute("SELECT body FROM c_people WHERE id = ?", (i,)).fetchone()[0])
        get = time.perf_counter() - t
        t = time.perf_counter()
        rows = [json.loads(r[0]) for r in db.execute("SELECT body FROM c_people WHERE json_extract(body, '$.age') >= 30 AND json_extract(body, '$.age') < 32 ORDER BY id")]
        rng = time.perf_counter() - t
        print(json.dumps({"insert": insert, "get": get, "range": rng, "rows": len(rows)}))
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, "\(count)", "\(gets)", folder + "/python-\(count).sqlite"]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    process.waitUntilExit()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    guard let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any] else { return nil }
    var timing = Timing()
    timing.insert = object["insert"] as? Double ?? 0
    timing.get = object["get"] as? Double ?? 0
    timing.range = object["range"] as? Double ?? 0
    timing.rangeRows = object["rows"] as? Int ?? 0
    return timing
}

/// What many apps do instead: keep every record in one JSON array file and rewrite it on each save.
func runJSONFile(existing: Int, saves: Int) throws -> (perSave: Double, coldFind: Double) {
    let path = folder + "/people.json"
    var people = (0..<existing).map(person)
    try JSONEncoder().encode(people).write(to: URL(fileURLWithPath: path), options: .atomic)
    let perSave =
        try Bench.time {
            for index in 0..<saves {
                people.append(person(existing + index))
                try JSONEncoder().encode(people).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
        } / Double(saves)
    let coldFind = try Bench.time {
        let loaded = try JSONDecoder().decode([Person].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        _ = loaded.first { $0.id == person(existing / 2).id }
    }
    return (perSave, coldFind)
}

let main = quick ? 20_000 : 100_000
let getCount = quick ? 20_000 : 100_000
let gets = (0..<getCount).map { person(($0 * 7919) % main).id }
print(
    "StrataRecords vs raw SQLite C API vs Python sqlite3+json, \(main) records of ~\(try JSONEncoder().encode(person(1)).count) bytes\(quick ? " (quick)" : "")"
)
let strata = try runStrata(main, gets: gets)
let raw = try runRaw(main, gets: gets)
let python = try runPython(main, gets: getCount)
print("")
var rows = [
    Comparison(
        "\(main) inserts, one transaction", operations: main, strata: strata.insert, baseline: raw.insert, target: 0.5),
    Comparison("\(getCount) point gets", operations: getCount, strata: strata.get, baseline: raw.get, target: 0.5),
    Comparison("indexed range (\(strata.rangeRows) rows)", operations: 1, strata: strata.range, baseline: raw.range),
    Comparison("full-scan prefix (\(strata.scanRows) rows)", operations: 1, strata: strata.scan, baseline: raw.scan),
]
Comparison.printTable(rows, baselineName: "raw C", ratioName: "raw/Strata")
if let python {
    print("")
    rows = [
        Comparison(
            "\(main) inserts, one transaction", operations: main, strata: strata.insert, baseline: python.insert,
            target: 1),
        Comparison(
            "\(getCount) point gets (+ decode)", operations: getCount, strata: strata.get, baseline: python.get,
            target: 1),
        Comparison("indexed range (+ decode)", operations: 1, strata: strata.range, baseline: python.range, target: 1),
    ]
    Comparison.printTable(rows, baselineName: "Python", ratioName: "speedup")
}

// Per-operation cost as the collection grows.
print("")
print("per-operation cost as N grows (Strata):")
var sizes = quick ? [10_000, 50_000] : [10_000, 100_000, 1_000_000]
if CommandLine.arguments.contains("--no-million") { sizes.removeAll { $0 > 100_000 } }
for size in sizes {
    let sample = (0..<20_000).map { person(($0 * 7919) % size).id }
    let timing = try runStrata(size, gets: sample)
    print(
        String(
            format: "  N = %8d: insert %@/record, get %@/record", size,
            Bench.perOperation(timing.insert, size), Bench.perOperation(timing.get, sample.count)))
}

// The JSON-array-file approach.
let existing = quick ? 2_000 : 10_000
let saves = quick ? 20 : 50
let json = try runJSONFile(existing: existing, saves: saves)
let strataSingles = try RecordStore(path: folder + "/singles.sqlite")
let singles = try strataSingles.collection(Person.self, named: "people")
try singles.insert(contentsOf: (0..<existing).map(person))
let strataSave =
    try Bench.time { for index in 0..<saves { try singles.insert(person(existing + index)) } } / Double(saves)
let strataFind = try Bench.time { _ = try singles.get(id: person(existing / 2).id) }
print("")
print("JSON array file rewritten on save (\(existing) records):")
print(
    String(
        format: "  save one record: file %.2f ms, Strata %.3f ms (durable commit): %.0fx", json.perSave * 1000,
        strataSave * 1000, json.perSave / strataSave))
print(
    String(
        format: "  load + find one: file %.2f ms, Strata %.3f ms: %.0fx", json.coldFind * 1000, strataFind * 1000,
        json.coldFind / strataFind))

// What erasing removed values costs: `PRAGMA secure_delete` (every Strata connection has it on) on raw SQLite,
// off then on, for a statement that rewrites every row and one that deletes every row; and the key-value
// delete that a move to secrets makes (`deleteSecurely`: the delete, then the write-ahead log checkpointed and
// truncated) beside a plain delete.
func runChurn(_ count: Int, secureDelete: Bool) throws -> (update: Double, delete: Double) {
    let raw = Raw(folder + "/churn-\(secureDelete)-\(count)-\(UInt32.random(in: 0...UInt32.max)).sqlite")
    raw.exec("PRAGMA secure_delete=\(secureDelete ? "ON" : "OFF")")
    let encoder = JSONEncoder()
    raw.insert(try (0..<count).map { (person($0).id, [UInt8](try encoder.encode(person($0)))) })
    let update = Bench.time { raw.exec("UPDATE c_people SET body = json_set(body, '$.name', 'Renamed')") }
    let delete = Bench.time { raw.exec("DELETE FROM c_people") }
    return (update, delete)
}

func runKeyValueDeletes(_ count: Int, securely: Bool) throws -> Double {
    let store = try RecordStore(path: folder + "/kv-\(securely)-\(count).sqlite")
    let value = Data(repeating: 0x61, count: 200)
    for index in 0..<count { try store.put(value, for: "k\(index)") }
    return try Bench.time {
        for index in 0..<count {
            if securely { try store.deleteSecurely("k\(index)") } else { try store.delete("k\(index)") }
        }
    }
}

let churnRows = quick ? 20_000 : 100_000
// Alternated three times, the best of each kept, so neither side pays for a cold cache alone.
var plain = (update: Double.infinity, delete: Double.infinity)
var erasing = plain
for _ in 0..<3 {
    for secureDelete in [false, true] {
        let run = try runChurn(churnRows, secureDelete: secureDelete)
        if secureDelete {
            erasing = (min(erasing.update, run.update), min(erasing.delete, run.delete))
        } else {
            plain = (min(plain.update, run.update), min(plain.delete, run.delete))
        }
    }
}
print("")
print("erasing removed values (raw SQLite, \(churnRows) rows, one statement each):")
print(
    String(
        format: "  rewrite every row: secure_delete off %.1f ms, on %.1f ms (%.2fx)", plain.update * 1000,
        erasing.update * 1000, erasing.update / plain.update))
print(
    String(
        format: "  delete every row:  secure_delete off %.1f ms, on %.1f ms (%.2fx)", plain.delete * 1000,
        erasing.delete * 1000, erasing.delete / plain.delete))
let kvDeletes = quick ? 200 : 1_000
let plainDeletes = try runKeyValueDeletes(kvDeletes, securely: false)
let secureDeletes = try runKeyValueDeletes(kvDeletes, securely: true)
print(
    String(
        format: "  key-value delete (Strata, %d keys): plain %@/key, deleteSecurely %@/key (%.1fx)", kvDeletes,
        Bench.perOperation(plainDeletes, kvDeletes), Bench.perOperation(secureDeletes, kvDeletes),
        secureDeletes / plainDeletes))
