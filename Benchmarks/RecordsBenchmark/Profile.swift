// `--profile OPERATION --side strata|raw --count N [--filled M]`: one operation N times on a store filled with M
// records (5,000 unless given), for an instruction counter. Only the operation runs inside `profiledOperations`, so callgrind can count it alone:
//
//   valgrind --tool=callgrind --toggle-collect='*profiledOperations*' \
//       .build/release/strata-bench-records --profile get --side strata --count 1000
//
// OPERATION is `insert` (N records in one transaction), `get` (N point gets, decoded on the Strata side, copied
// out on the raw side), `range` (N indexed range queries of about 1/35 of the records) or `scan` (N full-scan
// prefix queries); `get-reader`, `range-reader` and `scan-reader` read on the Strata side through `RecordDecodable`.
import BenchmarkKit
import CSQLite
import Foundation
import StrataRecords

/// What `--profile` measures: the arguments read.
struct ProfileRun {
    let operation: String
    let side: String
    let count: Int
    /// The records the store holds before the operation runs.
    let filled: Int

    init?(_ arguments: [String]) {
        guard let index = arguments.firstIndex(of: "--profile"), index + 1 < arguments.count else { return nil }
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        operation = arguments[index + 1]
        side = value("--side") ?? "strata"
        count = value("--count").flatMap(Int.init) ?? 1000
        filled = value("--filled").flatMap(Int.init) ?? 5_000
    }

    func run() throws {
        let folder = try Bench.temporaryFolder("records-profile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sides = try openSides(folder, "profile")
        try fill(sides, count: filled)
        let strata = side == "strata"
        var sink = 0
        switch operation {
        case "insert":
            let range = filled..<(filled + count)
            if strata {
                let people = range.map(person)
                try Self.measured { try sides.strata.insert(contentsOf: people) }
            } else {
                let rows = try encodedRows(range)
                Self.measured { sides.raw.insert(rows[...]) }
            }
        case "get":
            let ids = sampleIDs(count, of: filled, round: 0)
            if strata {
                try Self.measured { for id in ids { sink &+= try sides.strata.get(id: id)?.age ?? 0 } }
            } else {
                Self.measured { sink &+= sides.raw.get(ids[...]) }
            }
        case "get-reader":
            let ids = sampleIDs(count, of: filled, round: 0)
            try Self.measured { for id in ids { sink &+= try sides.reader.get(id: id)?.age ?? 0 } }
        case "range", "range-reader", "scan", "scan-reader":
            let predicate =
                operation.hasPrefix("range")
                ? Field("age") >= 30 && Field("age") < 32 : Field("name").hasPrefix("Person Number 1")
            if operation.hasSuffix("-reader") {
                try Self.measured { for _ in 0..<count { sink &+= try sides.reader.fetch(where: predicate).count } }
            } else if strata {
                try Self.measured { for _ in 0..<count { sink &+= try sides.strata.fetch(where: predicate).count } }
            } else {
                let sql = operation.hasPrefix("range") ? RawSQLite.rangeSQL : RawSQLite.prefixSQL
                Self.measured { for _ in 0..<count { sink &+= sides.raw.query(sql) } }
            }
        default:
            print("unknown operation \(operation): insert, get, get-reader, range, range-reader, scan or scan-reader")
        }
        print("\(operation) x\(count) on \(side): \(sink)")
        // The files of both sides, so that a difference in what a get reads shows (a larger file, an unmerged WAL).
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let size = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int ?? 0
            print("  \(name): \(size) bytes")
        }
    }

    /// Runs `body`: the one frame an instruction counter is told to count (`--toggle-collect`); prints its CPU
    /// time and the page faults it took (counts, which a loaded machine does not blur as it blurs time).
    static func measured(_ body: () throws -> Void) rethrows {
        let faults = Bench.pageFaults
        let cpu = Bench.cpuSeconds
        try profiledOperations(body)
        let after = Bench.pageFaults
        print(
            String(
                format: "cpu %.3f s, page faults: %d minor, %d major", Bench.cpuSeconds - cpu,
                after.minor - faults.minor, after.major - faults.major))
    }
}

/// The counted frame of ``ProfileRun/measured(_:)``, named to be found in a profile.
@inline(never)
func profiledOperations(_ body: () throws -> Void) rethrows {
    try body()
}
