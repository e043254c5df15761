import BenchmarkKit
import Foundation
import StrataPostgres
import StrataRecords

/// `--layouts`: what each candidate layout of the index on `age` costs the server per inserted record.
///
/// Each round copies the benchmark's 20,000 rows as one binary `COPY` (the least a client can ask of the server)
/// into a fresh table `(id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)` with each layout in turn, and reads
/// the CPU time of the connection's backend process alone (`/proc/<pid>/schedstat`) around it: far less sensitive
/// to a loaded machine than the wall time, and blind to the rest of the server (the WAL writer, autovacuum).
/// The layouts:
/// - none (the table and its primary key): the floor;
/// - format version 1's: a B-tree on `NULLIF(body->'age', 'null'::jsonb)`;
/// - the same value as a stored generated column, indexed;
/// - the same value computed by the client and sent as a `jsonb` column of its own, indexed;
/// - an order-preserving key computed by the client and sent as a `bytea` column, indexed: its bytes compare as
///   `jsonb` compares the values (a type byte, then for a number its sign, exponent and digits), so the B-tree
///   compares with `memcmp` and evaluates no expression;
/// - the same key with a string's text in a `text` column beside it, for a database whose collation is not
///   bytewise (the strings would then compare in the collation).
///
/// The `bytea` key is the layout Strata adopted (format version 2, on a database that sorts text bytewise); the
/// `NULLIF` expression index was format version 1's (see "A key the client computes" in Documentation/Postgres.md).
struct LayoutComparison {
    struct Layout: Sendable {
        let name: String
        /// The statements after `CREATE TABLE <table> (id …, body …` + `columns` `)`; `<table>` stands for the name.
        let extraColumns: String
        let index: String
        /// The `COPY` column list.
        let copyColumns: String
        /// The row's further columns (after `id` and `body`), each in binary form.
        let extra: @Sendable (Person) -> [[UInt8]?]
    }

    /// The binary form of `jsonb`: a version byte, then the text.
    static func jsonb(_ text: String) -> [UInt8] { [1] + Array(text.utf8) }

    /// The order-preserving key Strata computes for an integer value (``PostgresIndexKey``).
    static func orderedKey(_ value: Int) -> [UInt8] { PostgresIndexKey.key(.integer(Int64(value))) }

    static let layouts: [Layout] = [
        Layout(name: "none (the table and its primary key)", extraColumns: "", index: "", copyColumns: "(id, body)") {
            _ in []
        },
        Layout(
            name: "format 1: NULLIF(body->'age', 'null'::jsonb)", extraColumns: "",
            index: "CREATE INDEX ON <table> ((NULLIF(body->'age', 'null'::jsonb)))", copyColumns: "(id, body)"
        ) { _ in [] },
        Layout(
            name: "the same, a stored generated column",
            extraColumns: ", a jsonb GENERATED ALWAYS AS (NULLIF(body->'age', 'null'::jsonb)) STORED",
            index: "CREATE INDEX ON <table> (a)", copyColumns: "(id, body)"
        ) { _ in [] },
        Layout(
            name: "the same, a jsonb column the client fills", extraColumns: ", a jsonb",
            index: "CREATE INDEX ON <table> (a)", copyColumns: "(id, body, a)"
        ) { [jsonb(String($0.age))] },
        Layout(
            name: "an order-preserving bytea key (client)", extraColumns: ", k bytea NOT NULL",
            index: "CREATE INDEX ON <table> (k)", copyColumns: "(id, body, k)"
        ) { [orderedKey($0.age)] },
        Layout(
            name: "bytea key + text for strings (client)", extraColumns: ", k bytea NOT NULL, s text",
            index: "CREATE INDEX ON <table> (k, s)", copyColumns: "(id, body, k, s)"
        ) { [orderedKey($0.age), nil] },
    ]

    /// Runs the rounds, the layouts interleaved in each (starting from a different one each round), and prints the
    /// medians and ranges of the backend's CPU per record, each against format version 1's layout.
    static func run(_ raw: RawPostgres, rounds: Int) {
        let count = Sizes().bulkCount
        let everyone = (0..<count).map(person)
        let rows = try! everyone.map { ($0.id, String(decoding: try JSONEncoder().encode($0), as: UTF8.self)) }
        let backend = Int32(raw.value("SELECT pg_backend_pid()")) ?? 0
        var seconds = [[Double]](repeating: [], count: layouts.count)
        for round in 0..<rounds {
            // Each round starts with another layout, so that none always follows the same one.
            for step in 0..<layouts.count {
                let number = (round + step) % layouts.count
                let layout = layouts[number]
                let table = "layout_\(number)_\(round)"
                raw.exec(
                    #"CREATE TABLE \#(table) (id text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL\#(layout.extraColumns))"#
                )
                if !layout.index.isEmpty { raw.exec(layout.index.replacingOccurrences(of: "<table>", with: table)) }
                let before = CPUSplit.processSeconds(backend) ?? 0
                raw.copy(rows, into: table, columns: layout.copyColumns) { layout.extra(everyone[$0]) }
                seconds[number].append((CPUSplit.processSeconds(backend) ?? 0) - before)
                raw.exec("DROP TABLE \(table)")
            }
        }
        print("The backend's CPU per record for a binary COPY of \(count) rows, by layout of the index on age")
        print("(medians and ranges of \(rounds) rounds, the layouts interleaved, backend CPU only):\n")
        let strata = Rounds.median(seconds[1])
        for (number, layout) in layouts.enumerated() {
            let median = Rounds.median(seconds[number])
            let range =
                "\(Bench.perOperation(seconds[number].min() ?? 0, count)) – \(Bench.perOperation(seconds[number].max() ?? 0, count))"
            let name = layout.name.padding(toLength: 48, withPad: " ", startingAt: 0)
            print(
                "\(name) \(Bench.perOperation(median, count)) (\(range)), "
                    + String(format: "%.2f", median / strata) + " of format 1's")
        }
    }
}
