// StrataRecords against the raw SQLite C API, against a JSON array file rewritten on every save, and against
// Python's sqlite3 + json, in one run on the same payloads.
//
//   swift run -c release strata-bench-records [--quick] [--core] [--no-million]
//
// The raw C side is the ceiling: the same schema and index, the same pragmas as every Strata connection
// (`RawSQLite.pragmas`), the same `BEGIN IMMEDIATE` transactions, a statement prepared once; it is handed its JSON
// already made and hands back the row's bytes, so Strata's Codable encoding and decoding are counted against it
// and not on it (a second table pits Strata against raw C with Foundation's JSONEncoder and JSONDecoder, Codable
// on both sides). Inserts and point gets run in paired rounds, raw and Strata alternating (first one, then the
// other), and each side's median round is reported: on a shared machine a burst of load then hits both sides.
// `--core` runs only the paired rounds and the growth check (what the targets are about). `--profile` runs one
// operation alone for an instruction counter (see Profile.swift).
import BenchmarkKit
import CSQLite
import Foundation
import StrataRecords
import StrataSQLite

/// One side's seconds per round, paired with the other side's.
struct PairedRounds {
    var strata: [Double] = []
    var baseline: [Double] = []

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Runs `rounds` pairs, alternating which side goes first.
    static func run(rounds: Int, baseline: (Int) throws -> Double, strata: (Int) throws -> Double) rethrows
        -> PairedRounds
    {
        var result = PairedRounds()
        for round in 0..<rounds {
            if round % 2 == 0 {
                result.baseline.append(try baseline(round))
                result.strata.append(try strata(round))
            } else {
                result.strata.append(try strata(round))
                result.baseline.append(try baseline(round))
            }
        }
        return result
    }

    /// The medians as one comparison line (`operations` per round).
    func comparison(_ name: String, operations: Int, target: Double?) -> Comparison {
        Comparison(
            name, operations: operations, strata: Self.median(strata), baseline: Self.median(baseline), target: target)
    }

    /// The spread of the per-round ratios (baseline / Strata), for the note under the table.
    var ratioRange: String {
        let ratios = zip(baseline, strata).map { $0 / $1 }
        return String(
            format: "median %.2fx, range %.2f-%.2fx over %d rounds", Self.median(ratios), ratios.min() ?? .nan,
            ratios.max() ?? .nan, ratios.count)
    }
}

/// The raw SQLite C API, on the store's schema with the store's connection settings.
final class RawSQLite {
    /// What every Strata connection sets (`SQLiteConnection`, `SQLiteRecordEngine`), for a like-for-like ceiling.
    static let pragmas =
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF; PRAGMA secure_delete=ON; "
        + "PRAGMA mmap_size=\(BenchConfiguration.records.memoryMapBytes); "
        + "PRAGMA cache_size=-\(BenchConfiguration.records.pageCacheKibibytes);"

    var db: OpaquePointer?
    var insertStatement: OpaquePointer?
    var getStatement: OpaquePointer?

    init(_ path: String) {
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        exec(Self.pragmas)
        exec("CREATE TABLE c_people (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID")
        exec("CREATE INDEX i_people_age ON c_people(json_extract(body, '$.age'))")
        insertStatement = prepare("INSERT INTO c_people (id, body) VALUES (?, ?)")
        getStatement = prepare("SELECT body FROM c_people WHERE id = ?")
    }
    deinit {
        sqlite3_finalize(insertStatement)
        sqlite3_finalize(getStatement)
        sqlite3_close(db)
    }
    func exec(_ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }
    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        return statement
    }
    func insert(_ rows: ArraySlice<(String, [UInt8])>) {
        exec("BEGIN IMMEDIATE")
        for (id, body) in rows {
            var id = id
            id.withUTF8 { id in
                _ = sqlite3_bind_text(insertStatement, 1, id.baseAddress, Int32(id.count), strata_sqlite_transient())
            }
            _ = body.withUnsafeBytes {
                sqlite3_bind_text(insertStatement, 2, $0.baseAddress, Int32($0.count), strata_sqlite_transient())
            }
            sqlite3_step(insertStatement)
            sqlite3_reset(insertStatement)
        }
        exec("COMMIT")
    }
    func get(_ ids: ArraySlice<String>) -> Int {
        var total = 0
        for var id in ids {
            id.withUTF8 { id in
                _ = sqlite3_bind_text(getStatement, 1, id.baseAddress, Int32(id.count), strata_sqlite_transient())
            }
            if sqlite3_step(getStatement) == SQLITE_ROW {
                let bytes = [UInt8](
                    UnsafeRawBufferPointer(
                        start: sqlite3_column_text(getStatement, 0), count: Int(sqlite3_column_bytes(getStatement, 0))))
                total += bytes.count
            }
            sqlite3_reset(getStatement)
        }
        return total
    }
    /// What a program on the raw C API with Foundation's Codable does: encode each record, then insert it.
    func insert(encoding records: [Person]) throws {
        let encoder = JSONEncoder()
        insert(try records.map { ($0.id, [UInt8](try encoder.encode($0))) }[...])
    }
    /// Point gets decoded with Foundation's `JSONDecoder`.
    func get(decoding ids: [String]) throws -> Int {
        let decoder = JSONDecoder()
        var total = 0
        for var id in ids {
            id.withUTF8 { id in
                _ = sqlite3_bind_text(getStatement, 1, id.baseAddress, Int32(id.count), strata_sqlite_transient())
            }
            if sqlite3_step(getStatement) == SQLITE_ROW {
                let bytes = Data(
                    UnsafeRawBufferPointer(
                        start: sqlite3_column_text(getStatement, 0), count: Int(sqlite3_column_bytes(getStatement, 0))))
                total += try decoder.decode(Person.self, from: bytes).age
            }
            sqlite3_reset(getStatement)
        }
        return total
    }
    /// The indexed range query of the benchmarks, written as a C programmer would (constants in the SQL).
    static let rangeSQL =
        "SELECT body FROM c_people WHERE json_extract(body, '$.age') >= 30 AND json_extract(body, '$.age') < 32 ORDER BY id"
    /// The full-scan prefix query of the benchmarks (`name` starting with "Person Number 1").
    static let prefixSQL =
        "SELECT body FROM c_people WHERE json_extract(body, '$.name') >= 'Person Number 1' AND json_extract(body, '$.name') < 'Person Number 1\u{10FFFF}' ORDER BY id"

    func query(_ sql: String) -> Int {
        let statement = prepare(sql)
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

/// `count` ids spread over a collection of `size` records, the `round`th such sample.
func sampleIDs(_ count: Int, of size: Int, round: Int) -> [String] {
    (0..<count).map { person(((round * count + $0) &* 7919) % size).id }
}

/// Pre-made JSON for the raw side (Foundation's encoder, not timed).
func encodedRows(_ range: Range<Int>) throws -> [(String, [UInt8])] {
    let encoder = JSONEncoder()
    return try range.map { (person($0).id, [UInt8](try encoder.encode(person($0)))) }
}

struct Sides {
    let strata: RecordCollection<Person>
    /// The same collection read through `ReaderPerson`'s `RecordDecodable` conformance.
    let reader: RecordCollection<ReaderPerson>
    let raw: RawSQLite
}

func openSides(_ folder: String, _ label: String) throws -> Sides {
    let store = try RecordStore(path: folder + "/strata-\(label).sqlite", configuration: BenchConfiguration.records)
    return Sides(
        strata: try store.collection(Person.self, named: "people", indexes: [.field("age")]),
        reader: try store.collection(ReaderPerson.self, named: "people", indexes: [.field("age")]),
        raw: RawSQLite(folder + "/raw-\(label).sqlite"))
}

/// Fills both sides with `count` records in transactions of 50,000 (untimed).
func fill(_ sides: Sides, count: Int) throws {
    for start in stride(from: 0, to: count, by: 50_000) {
        let range = start..<min(count, start + 50_000)
        try sides.strata.insert(contentsOf: range.map(person))
        sides.raw.insert(try encodedRows(range)[...])
    }
}

/// Python's `sqlite3` + `json` on the same schema: `count` inserts in one transaction (timed), then more untimed up
/// to `filled` records (as many as the Strata side's range query reads), `gets` point gets, and the indexed range
/// query `rangeRounds` times (its median time is returned, with the rows it read).
func runPython(_ folder: String, _ count: Int, filled: Int, gets: Int, rangeRounds: Int) -> (
    insert: Double, get: Double, range: Double, rangeRows: Int
)? {
    let script = """
        import json, sqlite3, statistics, sys, time
        n, g, path, rounds, filled = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
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
        db.execute("BEGIN")
        db.executemany("INSERT INTO c_people (id, body) VALUES (?, ?)", ((p["id"], json.dumps(p)) for p in map(person, range(n, filled))))
        db.execute("COMMIT")
        ids = ["person-%07d" % ((i * 7919) % n) for i in range(g)]
        t = time.perf_counter()
        for i in ids:
            json.loads(db.execute("SELECT body FROM c_people WHERE id = ?", (i,)).fetchone()[0])
        get = time.perf_counter() - t
        ranges = []
        for _ in range(rounds):
            t = time.perf_counter()
            rows = [json.loads(r[0]) for r in db.execute("SELECT body FROM c_people WHERE json_extract(body, '$.age') >= 30 AND json_extract(body, '$.age') < 32 ORDER BY id")]
            ranges.append(time.perf_counter() - t)
        print(json.dumps({"insert": insert, "get": get, "range": statistics.median(ranges), "rows": len(rows)}))
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", "-c", script, "\(count)", "\(gets)", folder + "/python-\(count).sqlite", "\(rangeRounds)",
        "\(filled)",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any] else { return nil }
    return (
        object["insert"] as? Double ?? 0, object["get"] as? Double ?? 0, object["range"] as? Double ?? 0,
        object["rows"] as? Int ?? 0
    )
}

/// What many apps do instead: keep every record in one JSON array file and rewrite it on each save.
func runJSONFile(_ folder: String, existing: Int, saves: Int) throws -> (perSave: Double, coldFind: Double) {
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

// What erasing removed values costs: `PRAGMA secure_delete` (every Strata connection has it on) on raw SQLite,
// off then on, for a statement that rewrites every row and one that deletes every row; and the key-value
// delete that a move to secrets makes (`deleteSecurely`: the delete, then the write-ahead log checkpointed and
// truncated) beside a plain delete.
func runChurn(_ folder: String, _ count: Int, secureDelete: Bool) throws -> (update: Double, delete: Double) {
    let raw = RawSQLite(folder + "/churn-\(secureDelete)-\(count)-\(UInt32.random(in: 0...UInt32.max)).sqlite")
    raw.exec("PRAGMA secure_delete=\(secureDelete ? "ON" : "OFF")")
    raw.insert(try encodedRows(0..<count)[...])
    let update = Bench.time { raw.exec("UPDATE c_people SET body = json_set(body, '$.name', 'Renamed')") }
    let delete = Bench.time { raw.exec("DELETE FROM c_people") }
    return (update, delete)
}

func runKeyValueDeletes(_ folder: String, _ count: Int, securely: Bool) throws -> Double {
    let store = try RecordStore(path: folder + "/kv-\(securely)-\(count).sqlite")
    let value = Data(repeating: 0x61, count: 200)
    for index in 0..<count { try store.put(value, for: "k\(index)") }
    return try Bench.time {
        for index in 0..<count {
            if securely { try store.deleteSecurely("k\(index)") } else { try store.delete("k\(index)") }
        }
    }
}

func runExtras(_ folder: String, quick: Bool, main: Int, gets: Int, sides: Sides, strataGet: Double) throws {
    // A query of each kind, on the collections the paired rounds filled, in paired rounds as well: Strata decodes
    // every row, the raw side copies each row's bytes out.
    let queryRounds = quick ? 5 : 9
    var rangeRows = 0
    var scanRows = 0
    let range = Field("age") >= 30 && Field("age") < 32
    let prefix = Field("name").hasPrefix("Person Number 1")
    let ranges = try PairedRounds.run(
        rounds: queryRounds, baseline: { _ in Bench.time { _ = sides.raw.query(RawSQLite.rangeSQL) } },
        strata: { _ in try Bench.time { rangeRows = try sides.strata.fetch(where: range).count } })
    let readerRanges = try PairedRounds.run(
        rounds: queryRounds, baseline: { _ in Bench.time { _ = sides.raw.query(RawSQLite.rangeSQL) } },
        strata: { _ in try Bench.time { rangeRows = try sides.reader.fetch(where: range).count } })
    let scans = try PairedRounds.run(
        rounds: queryRounds, baseline: { _ in Bench.time { _ = sides.raw.query(RawSQLite.prefixSQL) } },
        strata: { _ in try Bench.time { scanRows = try sides.strata.fetch(where: prefix).count } })
    let readerScans = try PairedRounds.run(
        rounds: queryRounds, baseline: { _ in Bench.time { _ = sides.raw.query(RawSQLite.prefixSQL) } },
        strata: { _ in try Bench.time { scanRows = try sides.reader.fetch(where: prefix).count } })
    let strataRange = PairedRounds.median(ranges.strata)
    print("")
    Comparison.printTable(
        [
            ranges.comparison("indexed range (\(rangeRows) rows)", operations: 1, target: nil),
            readerRanges.comparison("indexed range (\(rangeRows) rows, RecordDecodable)", operations: 1, target: 0.8),
            scans.comparison("full-scan prefix (\(scanRows) rows)", operations: 1, target: nil),
            readerScans.comparison("full-scan prefix (\(scanRows) rows, RecordDecodable)", operations: 1, target: 0.8),
        ], baselineName: "raw C", ratioName: "raw/Strata")
    print("  indexed range: \(ranges.ratioRange); RecordDecodable: \(readerRanges.ratioRange)")
    print("  full-scan prefix: \(scans.ratioRange); RecordDecodable: \(readerScans.ratioRange)")

    let strataInsert = try Bench.time {
        let store = try RecordStore(path: folder + "/strata-python-side.sqlite")
        try store.collection(Person.self, named: "people", indexes: [.field("age")]).insert(
            contentsOf: (0..<main).map(person))
    }
    // Python holds as many records as `sides` (the two paired-round collections), so its range reads the same rows.
    if let python = runPython(folder, main, filled: 2 * main, gets: gets, rangeRounds: queryRounds) {
        print("")
        Comparison.printTable(
            [
                Comparison(
                    "\(main) inserts, one transaction", operations: main, strata: strataInsert,
                    baseline: python.insert, target: 1),
                Comparison(
                    "\(gets) point gets (+ decode)", operations: gets, strata: strataGet * Double(gets),
                    baseline: python.get, target: 1),
                Comparison(
                    "indexed range (+ decode; \(rangeRows) rows, Python \(python.rangeRows))", operations: 1,
                    strata: strataRange, baseline: python.range, target: 1),
            ], baselineName: "Python", ratioName: "speedup")
    }

    let existing = quick ? 2_000 : 10_000
    let saves = quick ? 20 : 50
    let json = try runJSONFile(folder, existing: existing, saves: saves)
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

    let churnRows = quick ? 20_000 : 100_000
    // Alternated three times, the best of each kept, so neither side pays for a cold cache alone.
    var plain = (update: Double.infinity, delete: Double.infinity)
    var erasing = plain
    for _ in 0..<3 {
        for secureDelete in [false, true] {
            let run = try runChurn(folder, churnRows, secureDelete: secureDelete)
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
    let plainDeletes = try runKeyValueDeletes(folder, kvDeletes, securely: false)
    let secureDeletes = try runKeyValueDeletes(folder, kvDeletes, securely: true)
    print(
        String(
            format: "  key-value delete (Strata, %d keys): plain %@/key, deleteSecurely %@/key (%.1fx)", kvDeletes,
            Bench.perOperation(plainDeletes, kvDeletes), Bench.perOperation(secureDeletes, kvDeletes),
            secureDeletes / plainDeletes))
}

/// Paired rounds of inserts (`records`, one transaction of `records.count / rounds` per round and side), then of
/// point gets on ids spread below `records.upperBound` (decoded with `Codable`, then, when `readerGets`, read
/// through `RecordDecodable` on the same ids); `rawInsert` and `rawGet` time the raw side's round. Also returns the
/// sum of the ages read, so that no read can be left out.
func insertAndGetRounds(
    _ sides: Sides, rounds: Int, records: Range<Int>, getsPerRound: Int, readerGets: Bool = false,
    rawInsert: (Range<Int>) throws -> Double, rawGet: ([String]) throws -> Double
) throws -> (inserts: PairedRounds, gets: PairedRounds, readerGets: PairedRounds, sink: Int) {
    let batch = records.count / rounds
    func slice(_ round: Int) -> Range<Int> {
        (records.lowerBound + round * batch)..<(records.lowerBound + (round + 1) * batch)
    }
    let inserts = try PairedRounds.run(
        rounds: rounds, baseline: { try rawInsert(slice($0)) },
        strata: { round in
            let people = slice(round).map(person)
            return try Bench.time { try sides.strata.insert(contentsOf: people) }
        })
    var total = 0
    let gets = try PairedRounds.run(
        rounds: rounds, baseline: { try rawGet(sampleIDs(getsPerRound, of: records.upperBound, round: $0)) },
        strata: { round in
            let ids = sampleIDs(getsPerRound, of: records.upperBound, round: round)
            return try Bench.time { for id in ids { total &+= try sides.strata.get(id: id)?.age ?? 0 } }
        })
    let reader = try PairedRounds.run(
        rounds: readerGets ? rounds : 0,
        baseline: { try rawGet(sampleIDs(getsPerRound, of: records.upperBound, round: $0)) },
        strata: { round in
            let ids = sampleIDs(getsPerRound, of: records.upperBound, round: round)
            return try Bench.time { for id in ids { total &+= try sides.reader.get(id: id)?.age ?? 0 } }
        })
    return (inserts, gets, reader, total)
}

/// The insert and get lines of one baseline (and the `RecordDecodable` get's, if any), then the spread of their
/// rounds.
func printRounds(
    _ insert: Comparison, _ inserts: PairedRounds, _ get: Comparison, _ gets: PairedRounds,
    reader: (Comparison, PairedRounds)? = nil, baselineName: String, ratioName: String
) {
    print("")
    Comparison.printTable(
        [insert, get] + (reader.map { [$0.0] } ?? []), baselineName: baselineName, ratioName: ratioName)
    print(
        "  insert: \(inserts.ratioRange); point get: \(gets.ratioRange)"
            + (reader.map { "; RecordDecodable: \($0.1.ratioRange)" } ?? ""))
}

func runBenchmark() throws {
    let arguments = CommandLine.arguments
    if let profile = ProfileRun(arguments) { return try profile.run() }
    let quick = arguments.contains("--quick")
    let folder = try Bench.temporaryFolder("records")
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let main = quick ? 20_000 : 100_000
    let rounds = quick ? 6 : 10
    let batch = main / rounds
    let getsPerRound = quick ? 4_000 : 10_000
    print(
        "StrataRecords vs raw SQLite C API (same schema and pragmas, JSON pre-made on the raw side), \(main) records "
            + "of ~\(try JSONEncoder().encode(person(1)).count) bytes, \(rounds) paired rounds\(quick ? " (quick)" : ""), "
            + BenchConfiguration.summary
    )

    // Inserts: each round adds `batch` records to each side in one transaction; then point gets on the whole
    // collection, ids spread over it.
    let sides = try openSides(folder, "main")
    let rows = try encodedRows(0..<main)
    var sink = 0
    let (inserts, gets, readerGets, strataSink) = try insertAndGetRounds(
        sides, rounds: rounds, records: 0..<main, getsPerRound: getsPerRound, readerGets: true,
        rawInsert: { range in Bench.time { sides.raw.insert(rows[range]) } },
        rawGet: { ids in Bench.time { sink &+= sides.raw.get(ids[...]) } })
    printRounds(
        inserts.comparison("insert, \(batch) per transaction", operations: batch, target: 0.75), inserts,
        gets.comparison("point get (Codable decode)", operations: getsPerRound, target: 0.75), gets,
        reader: (
            readerGets.comparison("point get (RecordDecodable)", operations: getsPerRound, target: 0.9), readerGets
        ),
        baselineName: "raw C", ratioName: "raw/Strata")

    // The same against a program that pays for Codable too: raw C with Foundation's JSONEncoder and JSONDecoder.
    let (codableInserts, codableGets, _, codableSink) = try insertAndGetRounds(
        sides, rounds: rounds, records: main..<(2 * main), getsPerRound: getsPerRound,
        rawInsert: { range in try Bench.time { try sides.raw.insert(encoding: range.map(person)) } },
        rawGet: { ids in try Bench.time { sink &+= try sides.raw.get(decoding: ids) } })
    printRounds(
        codableInserts.comparison("insert, \(batch) per transaction (+ encode)", operations: batch, target: 1),
        codableInserts, codableGets.comparison("point get (+ decode)", operations: getsPerRound, target: 1),
        codableGets, baselineName: "raw C + Foundation Codable", ratioName: "speedup")

    // Growth: a point get at `large` records against one at 10,000, paired rounds on two collections each side.
    if !(arguments.contains("--no-million") && !quick) {
        let large = quick ? 100_000 : 1_000_000
        let small = try openSides(folder, "small")
        let big = try openSides(folder, "large")
        try fill(small, count: 10_000)
        try fill(big, count: large)
        let growthGets = quick ? 4_000 : 20_000
        // Each side the same way: per round, a pair of runs at 10k and at `large` on the same ids, alternating, the
        // median of each kept; and the page faults of the runs at `large` counted (the first touch of a page of
        // the memory-mapped file is a minor fault, a read from disk a major one).
        var strataGrowth = PairedRounds()
        var rawGrowth = PairedRounds()
        var strataFaults = (minor: 0, major: 0)
        var rawFaults = (minor: 0, major: 0)
        func growthRound(
            _ growth: inout PairedRounds, _ faults: inout (minor: Int, major: Int), smallRun: () throws -> Void,
            largeRun: () throws -> Void
        ) rethrows {
            let pair = try PairedRounds.run(
                rounds: 2, baseline: { _ in try Bench.time(smallRun) },
                strata: { _ in
                    let before = Bench.pageFaults
                    let seconds = try Bench.time(largeRun)
                    let after = Bench.pageFaults
                    faults = (faults.minor + after.minor - before.minor, faults.major + after.major - before.major)
                    return seconds
                })
            growth.baseline.append(PairedRounds.median(pair.baseline))
            growth.strata.append(PairedRounds.median(pair.strata))
        }
        for round in 0..<rounds {
            let smallIDs = sampleIDs(growthGets, of: 10_000, round: round)
            let largeIDs = sampleIDs(growthGets, of: large, round: round)
            // Which side goes first alternates too.
            let sides = round % 2 == 0 ? [true, false] : [false, true]
            for strata in sides {
                if strata {
                    try growthRound(
                        &strataGrowth, &strataFaults,
                        smallRun: { for id in smallIDs { sink &+= try small.strata.get(id: id)?.age ?? 0 } },
                        largeRun: { for id in largeIDs { sink &+= try big.strata.get(id: id)?.age ?? 0 } })
                } else {
                    growthRound(
                        &rawGrowth, &rawFaults, smallRun: { sink &+= small.raw.get(smallIDs[...]) },
                        largeRun: { sink &+= big.raw.get(largeIDs[...]) })
                }
            }
        }
        print("")
        Comparison.printTable(
            [
                // No target (retired by issue 37): the growth is SQLite's B-tree descent, the same for raw C.
                strataGrowth.comparison(
                    "point get at \(large) vs 10000 records", operations: growthGets, target: nil)
            ], baselineName: "10k", ratioName: "10k/large")
        print("  Strata: \(strataGrowth.ratioRange)")
        print(
            String(
                format: "  raw C (same pragmas, same rounds): %@ at 10000, %@ at %d (%.2fx); %@",
                Bench.perOperation(PairedRounds.median(rawGrowth.baseline), growthGets),
                Bench.perOperation(PairedRounds.median(rawGrowth.strata), growthGets), large,
                PairedRounds.median(rawGrowth.strata) / PairedRounds.median(rawGrowth.baseline),
                rawGrowth.ratioRange))
        let largeGets = Double(2 * rounds * growthGets)
        print(
            String(
                format: "  page faults per get at %d: Strata %.3f minor, %.4f major; raw C %.3f minor, %.4f major",
                large, Double(strataFaults.minor) / largeGets, Double(strataFaults.major) / largeGets,
                Double(rawFaults.minor) / largeGets, Double(rawFaults.major) / largeGets))
    }

    if !arguments.contains("--core") {
        try runExtras(
            folder, quick: quick, main: main, gets: getsPerRound, sides: sides,
            strataGet: PairedRounds.median(gets.strata) / Double(getsPerRound))
    }
    if sink &+ strataSink &+ codableSink == 42 { print("") }
}

try runBenchmark()
