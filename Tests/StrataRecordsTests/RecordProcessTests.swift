import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

@Suite("RecordStore: several processes")
struct RecordProcessTests {
    /// Eight processes on one hot record: every read-modify-write succeeds (on PostgreSQL, within the retry
    /// budget, the reruns queued on the record's lock), and none is lost.
    @Test(arguments: engines) func eightProcessesIncrementingEndAtExactlyOneThousand(_ engine: RecordEngineKind) throws
    {
        let fixture = try RecordsFixture(engine)
        _ = try fixture.store().collection(Counter.self, named: "counters")
        let child = try TestExecutables.url(named: "strata-test-child")
        let processes = try (0..<8).map { _ in try ChildProcess(child, ["records-increment", fixture.path, "125"]) }
        for process in processes {
            let result = process.wait()
            #expect(result.status == 0, "\(result.standardError)")
        }
        let counters = try fixture.store().collection(Counter.self, named: "counters")
        #expect(try counters.get(id: "shared")?.value == 1000)
    }

    @Test(arguments: engines) func aTransactionKilledMidwayLeavesAllOrNothing(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        _ = try fixture.store().collection(BatchItem.self, named: "items")
        let child = try TestExecutables.url(named: "strata-test-child")
        var next = 0
        let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init).map { $0 / 4 } ?? 30
        for round in 0..<rounds {
            let process = try ChildProcess(child, ["records-batch-loop", fixture.path, "\(next)"])
            try process.waitForLine { $0.hasPrefix("committed ") }
            Thread.sleep(forTimeInterval: Double(round % 9) / 1000)
            process.kill(SIGKILL)
            _ = process.wait()
            let committed = process.lines.compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }
            let store = try fixture.store()
            #expect(try store.verify().isEmpty)
            let items = try store.collection(BatchItem.self, named: "items")
            // Every batch has all 20 of its records or none.
            let all = try items.fetch()
            let sizes = Dictionary(grouping: all, by: \.batch).mapValues(\.count)
            #expect(
                sizes.values.allSatisfy { $0 == 20 },
                "round \(round): partial batches \(sizes.filter { $0.value != 20 })")
            for batch in committed { #expect(sizes[batch] == 20, "acknowledged batch \(batch) lost") }
            next = (sizes.keys.max() ?? next) + 1
        }
    }

    @Test(arguments: engines) func anotherProcessesCommitIsObserved(_ engine: RecordEngineKind) async throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store(configuration: RecordsConfiguration(observationIntervalMilliseconds: 20))
        let counters = try store.collection(Counter.self, named: "counters")
        let stream = counters.changes()
        let waiter = Task { () -> RecordChange? in
            for await change in stream where change.isExternal { return change }
            return nil
        }
        try await Task.sleep(for: .milliseconds(100))
        let child = try TestExecutables.url(named: "strata-test-child")
        #expect(try ChildProcess.run(child, ["records-increment", fixture.path, "1"]).status == 0)
        let change = try await withThrowingTaskGroup(of: RecordChange?.self) { group in
            group.addTask { await waiter.value }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                waiter.cancel()
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(change?.isExternal == true)
        // PostgreSQL's notifications name the collection; SQLite's data_version cannot.
        #expect(change?.collection == (engine == .postgres ? "counters" : nil))
        #expect(try counters.get(id: "shared")?.value == 1)
    }

    @Test(arguments: engines) func aChildProcessObservesOurCommit(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let counters = try store.collection(Counter.self, named: "counters")
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["records-observe", fixture.path])
        try child.waitForLine { $0 == "ready" }
        // The child may still be starting its watcher: commit until it reports one (at most 20 s).
        var value = 0
        let deadline = Date().addingTimeInterval(20)
        while !child.lines.contains(where: { $0.hasPrefix("change ") }) && Date() < deadline {
            value += 1
            try counters.upsert(Counter(id: "shared", value: value))
            Thread.sleep(forTimeInterval: 0.05)
        }
        if !child.lines.contains(where: { $0.hasPrefix("change ") }) { child.kill(SIGKILL) }
        let result = child.wait()
        #expect(result.status == 0, "\(result.standardError)")
        let line = child.lines.first { $0.hasPrefix("change ") }
        #expect(line == (engine == .postgres ? "change counters external" : "change unknown external"))
    }
}

@Suite("RecordStore: observation, export, files")
struct RecordFileTests {
    let fixture: RecordsFixture
    init() throws { fixture = try RecordsFixture() }

    @Test(arguments: engines) func queryObservationEmitsOnRelevantCommits(_ engine: RecordEngineKind) async throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        var iterator = people.observe(Query(Field("age") >= 50)).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 0)
        var old = person(2)
        old.age = 80
        try people.insert(old)
        #expect(try await iterator.next()?.map(\.id) == [old.id])
        try people.insert(person(3))  // age 21: the results stay the same, nothing is emitted
        old.age = 81
        try people.update(old)
        #expect(try await iterator.next()?.first?.age == 81)
    }

    @Test(arguments: engines) func exportAndImportJSONLines(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(contentsOf: (0..<2500).map(person))
        let file = fixture.directory.appending("people.jsonl")
        #expect(try people.exportJSONLines(to: file) == 2500)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2500)
        // Each line is JSON that Foundation reads back to the same record.
        let first = try JSONDecoder().decode(Person.self, from: Data(lines[0].utf8))
        #expect(first == person(0))
        let copy = try store.collection(Person.self, named: "copy")
        #expect(try copy.importJSONLines(from: file) == 2500)
        #expect(try copy.fetch() == people.fetch())
    }

    @Test(arguments: engines) func importWithBadLinesChangesNothing(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(99))
        let good = try FastJSONEncoder.encode(person(1))
        var text = String(decoding: good, as: UTF8.self) + "\n"
        text += "{not json}\n"
        text += String(decoding: try FastJSONEncoder.encode(person(2)), as: UTF8.self) + "\n"
        text += #"{"id": "p3", "name": "No email", "age": 3, "tags": []}"# + "\n"
        text += "\n"
        text += #"{"id": "p4", "name": "x", "email": "e", "age": "old", "tags": []}"# + "\n"
        let file = fixture.directory.appending("bad.jsonl")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StorageError.self) { try people.importJSONLines(from: file) }
        #expect(error?.message.hasPrefix("3 bad line(s)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("line 2: not JSON") == true)
        #expect(error?.message.contains("line 4: missing field 'email'") == true)
        #expect(error?.message.contains("line 6: field 'age'") == true)
        #expect(try people.count() == 1)
        // A duplicate of an existing id fails inside the transaction: still nothing is imported.
        let clash = fixture.directory.appending("clash.jsonl")
        let clashing = [person(5), person(99)].map { String(decoding: try! FastJSONEncoder.encode($0), as: UTF8.self) }
        try Data((clashing.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: clash))
        #expect(throws: StorageError.self) { try people.importJSONLines(from: clash) }
        #expect(try people.count() == 1)
        #expect(try people.importJSONLines(from: clash, replacingExisting: true) == 2)
    }

    @Test func aForeignOrCorruptFileIsATypedError() throws {
        let garbage = fixture.directory.appending("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notSQLite = #expect(throws: StorageError.self) { try RecordStore(path: garbage) }
        #expect(notSQLite?.code == .notAStore)
        #expect(notSQLite?.path == garbage)
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data(repeating: 0x41, count: 4096), "untouched")

        let foreign = fixture.directory.appending("foreign.sqlite")
        let shell = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"), [foreign, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"])
        #expect(shell.status == 0)
        let other = #expect(throws: StorageError.self) { try RecordStore(path: foreign) }
        #expect(other?.code == .notAStore)
    }

    @Test func theSqliteShellReadsOurStoreAndVerifyPasses() throws {
        do {
            let store = try fixture.store()
            let people = try store.collection(Person.self, named: "people", indexes: [.field("age")])
            try people.insert(contentsOf: (0..<10).map(person))
            #expect(try store.verify() == [])
        }
        let shell = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                fixture.path,
                "PRAGMA integrity_check; SELECT json_extract(body, '$.name') FROM c_people WHERE id = 'p00003';",
            ])
        #expect(shell.standardOutput == "ok\nPerson 3\n", "\(shell.standardError)")
    }

    @Test func aDamagedPageIsFoundByVerify() throws {
        do {
            let store = try fixture.store()
            let people = try store.collection(Person.self, named: "people")
            try people.insert(contentsOf: (0..<3000).map(person))
            try (store.engine as! SQLiteRecordEngine).withWriter {
                try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)", operation: "test")
            }
        }
        // Scribble over a page in the middle of the file.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.path))
        try handle.seek(toOffset: 40_960)
        handle.write(Data(repeating: 0xA5, count: 2048))
        try handle.close()
        do {
            let problems = try fixture.store().verify()
            #expect(!problems.isEmpty)
        } catch let error as StorageError {
            #expect(error.code == .corrupt)
        }
    }
}

@Suite("RecordStore: StorageBackend conformance")
struct RecordConformanceTests {
    @Test(arguments: engines, BackendConformance.checkIDs)
    func conformance(_ engine: RecordEngineKind, _ check: String) async throws {
        let fixture = try RecordsFixture(engine)
        try await BackendConformance.run(check) { try fixture.store() }
    }
}

@Suite("FastJSON: exact round trips and RFC 8259 output")
struct FastJSONTests {
    struct Everything: Codable, Equatable {
        var int: Int = -42
        var big: Int64 = .max
        var small: Int8 = .min
        var unsigned: UInt64 = .max
        var double: Double = 0.1
        var tiny: Double = .leastNonzeroMagnitude
        var float: Float = 1.5
        var bool = true
        var text = "quote \" backslash \\ newline \n tab \t control \u{01} unicode é 日本 🌍"
        var optional: String? = nil
        var present: Int? = 7
        var array = [1, 2, 3]
        var nested = ["a": [true, false]]
        var date = Date(timeIntervalSinceReferenceDate: 123.456)
        var data = Data([0, 255, 128])
        var url = URL(string: "https://example.com/a?b=c")!
        var empty: [String] = []
        var enumValue = Kind.second
        enum Kind: String, Codable { case first, second }
    }

    @Test func roundTripsExactly() throws {
        let value = Everything()
        let bytes = try FastJSONEncoder.encode(value)
        let back = try bytes.withUnsafeBytes { try FastJSONDecoder.decode(Everything.self, from: $0) }
        #expect(back == value)
        // Foundation reads what we write, with the same strategies.
        #expect(try JSONDecoder().decode(Everything.self, from: Data(bytes)) == value)
        // And we read what Foundation writes.
        let foundation = try JSONEncoder().encode(value)
        #expect(try foundation.withUnsafeBytes { try FastJSONDecoder.decode(Everything.self, from: $0) } == value)
    }

    @Test func outputIsStrictJSON() throws {
        let bytes = try FastJSONEncoder.encode(Everything())
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("\n"), "control characters are escaped")
        #expect(text.contains(#"\u0001"#))
        #expect(!text.contains("\"optional\""), "absent optionals are left out")
        // Python's json module, strict, agrees it is valid JSON.
        let python = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import json,sys; json.loads(sys.stdin.read()); print('valid')"],
            input: Data(bytes))
        #expect(python.standardOutput == "valid\n", "\(python.standardError)")
    }

    @Test func scalarArraysDecodeFastAndFailWithTheirPath() throws {
        struct Tagged: Codable, Equatable {
            var tags: [String]
            var counts: [Int]
            var weights: [Double]
        }
        let value = Tagged(tags: ["a", "é", ""], counts: [0, -5, 7], weights: [0.5, 2])
        let bytes = try FastJSONEncoder.encode(value)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"tags":["a","é",""],"counts":[0,-5,7],"weights":[0.5,2]}"#)
        #expect(try bytes.withUnsafeBytes { try FastJSONDecoder.decode(Tagged.self, from: $0) } == value)
        let bad = Array(#"{"tags":["a",3],"counts":[],"weights":[]}"#.utf8)
        do {
            _ = try bad.withUnsafeBytes { try FastJSONDecoder.decode(Tagged.self, from: $0) }
            Issue.record("a number was accepted as a String")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(RecordCoder.path(context.codingPath) == "tags.[1]")
        }
        struct Bad: Codable { var x = [Double.infinity] }
        #expect(throws: EncodingError.self) { try FastJSONEncoder.encode(Bad()) }
    }

    @Test func nonFiniteNumbersAreRefused() throws {
        struct Bad: Codable { var x = Double.nan }
        #expect(throws: EncodingError.self) { try FastJSONEncoder.encode(Bad()) }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\u{01}\"", "tru", "[1] 2", "\"\\ud800\"", "1e400",
    ])
    func malformedJSONIsRefused(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func parserHandlesEscapesAndNumbers() throws {
        #expect(
            try JSONValue.parse(#"{"a":[1,-2.5e3,"\u00e9\ud83c\udf0d",null,true]}"#)
                == .object(["a": .array([.integer(1), .number(-2500), .string("é🌍"), .null, .bool(true)])]))
    }
}
