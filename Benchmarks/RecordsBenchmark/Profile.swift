// `--profile OPERATION --side strata|raw --count N`: one operation N times on a filled store, for an instruction
// counter. Only the operation runs inside `profiledOperations`, so callgrind can count it alone:
//
//   valgrind --tool=callgrind --toggle-collect='*profiledOperations*' \
//       .build/release/strata-bench-records --profile get --side strata --count 1000
//
// OPERATION is `insert` (N records in one transaction), `get` (N point gets, decoded on the Strata side, copied
// out on the raw side) or `range` (N indexed range queries of about 1/35 of the records).
import BenchmarkKit
import CSQLite
import Foundation
import StrataRecords

/// What `--profile` measures: the arguments read.
struct ProfileRun {
    let operation: String
    let side: String
    let count: Int

    init?(_ arguments: [String]) {
        guard let index = arguments.firstIndex(of: "--profile"), index + 1 < arguments.count else { return nil }
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        operation = arguments[index + 1]
        side = value("--side") ?? "strata"
        count = value("--count").flatMap(Int.init) ?? 1000
    }

    /// The records the store holds before the operation runs.
    static let filled = 5_000

    func run() throws {
        let folder = try Bench.temporaryFolder("records-profile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sides = try openSides(folder, "profile")
        try fill(sides, count: Self.filled)
        let strata = side == "strata"
        var sink = 0
        switch operation {
        case "insert":
            let range = Self.filled..<(Self.filled + count)
            if strata {
                let people = range.map(person)
                try Self.measured { try sides.strata.insert(contentsOf: people) }
            } else {
                let rows = try encodedRows(range)
                Self.measured { sides.raw.insert(rows[...]) }
            }
        case "get":
            let ids = sampleIDs(count, of: Self.filled, round: 0)
            if strata {
                try Self.measured { for id in ids { sink &+= try sides.strata.get(id: id)?.age ?? 0 } }
            } else {
                Self.measured { sink &+= sides.raw.get(ids[...]) }
            }
        case "range":
            if strata {
                try Self.measured {
                    for _ in 0..<count {
                        sink &+= try sides.strata.fetch(where: Field("age") >= 30 && Field("age") < 32).count
                    }
                }
            } else {
                Self.measured { for _ in 0..<count { sink &+= sides.raw.query(RawSQLite.rangeSQL) } }
            }
        default:
            print("unknown operation \(operation): insert, get or range")
        }
        print("\(operation) x\(count) on \(side): \(sink)")
    }

    /// Runs `body`: the one frame an instruction counter is told to count (`--toggle-collect`).
    @inline(never)
    static func measured(_ body: () throws -> Void) rethrows { try profiledOperations(body) }
}

/// The counted frame of ``ProfileRun/measured(_:)``, named to be found in a profile.
@inline(never)
func profiledOperations(_ body: () throws -> Void) rethrows {
    try body()
}
