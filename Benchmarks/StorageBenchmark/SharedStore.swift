import BenchmarkKit
import Foundation
import Strata
import StrataCatalogPostgres
import StrataPostgres

/// `--shared`: a store several machines share, declared as a program declares it (`[catalog] shared = true`) — its
/// catalog on PostgreSQL (`PostgresCatalog`), records, defaults and secrets on the same server and schema, files on
/// S3 —
/// against the tiers' own backends on the same servers. Needs
/// `STRATA_POSTGRES_URL` and `STRATA_S3_URL` (with `AWS_ENDPOINT_URL` and credentials), as `Scripts/bench.sh`
/// sets them. Also prints what one round trip to the server costs, to read the rows in round trips.
func runShared(quick: Bool) throws {
    let environment = ProcessInfo.processInfo.environment
    guard let server = environment["STRATA_POSTGRES_URL"], !server.isEmpty,
        let bucket = environment["STRATA_S3_URL"], !bucket.isEmpty
    else {
        print("--shared needs STRATA_POSTGRES_URL and STRATA_S3_URL (Scripts/bench.sh starts both)")
        exit(64)
    }
    let schema = "bench_shared_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    let postgres = PostgresConfiguration(connectionString: server, schema: schema)
    defer { _ = try? PostgresRecordEngine.dropStore(postgres) }
    let root = try Bench.temporaryFolder("storage-shared")
    defer { try? FileManager.default.removeItem(atPath: root) }
    var configuration = StoreConfiguration()
    configuration.catalog.isShared = true
    configuration.defaults.backend = "postgres"
    configuration.secrets.backend = "postgres"
    configuration.records.backend = "postgres"
    configuration.records.url = server + (server.contains("?") ? "&" : "?") + "strata_schema=" + schema
    configuration.files.backend = "s3"
    configuration.files.url = bucket + schema + "/"
    let storage = try Storage(
        root: root, secretsKey: .inMemory(Secret(Data(repeating: 0x5a, count: 32))), configuration: configuration)
    guard let catalog = storage.catalog as? PostgresCatalog else {
        print("--shared: the declared shared store did not open its catalog on PostgreSQL")
        exit(70)
    }

    // One round trip: the change counter's read is one statement on a pooled connection.
    let trips = quick ? 200 : 1000
    let roundTrip = Bench.best(of: 5) { for _ in 0..<trips { _ = catalog.changeCount } } / Double(trips)

    let cases: [(tier: Tier, keys: Int, readTarget: Double?)] = [
        (.records, quick ? 100 : 500, 1 / 1.3), (.defaults, quick ? 100 : 500, 1 / 1.3),
        (.secrets, quick ? 100 : 300, 1 / 1.3), (.files, quick ? 20 : 100, nil),
    ]
    var rows: [Comparison] = []
    var notes: [String] = []
    for (tier, keyCount, readTarget) in cases {
        let descriptor = benchDescriptor(for: tier)
        let keys = (0..<keyCount).map { "bench-shared-\(tier.rawValue)/item-\($0)" }
        let value = Data(repeating: 0x42, count: descriptor.estimatedSize)
        for key in keys { try storage.put(value, for: key, as: descriptor) }
        let backend = try storage.backend(for: tier)
        var direct = Double.infinity
        var facade = Double.infinity
        var directPut = Double.infinity
        var facadePut = Double.infinity
        // Puts, then reads, each side alternating with the other: a read that follows a put of its key would also
        // pay for pruning the row versions the put left (the catalog's row, on the store's side only).
        for _ in 0..<(quick ? 2 : 5) {
            directPut = min(directPut, try Bench.time { for key in keys { try backend.put(value, for: key) } })
            facadePut = min(
                facadePut, try Bench.time { for key in keys { try storage.put(value, for: key, as: descriptor) } })
        }
        for _ in 0..<(quick ? 2 : 5) {
            direct = min(direct, try Bench.time { for key in keys { _ = try backend.data(for: key) } })
            facade = min(facade, try Bench.time { for key in keys { _ = try storage.data(for: key) } })
        }
        rows.append(
            Comparison(
                "shared read \(tier.rawValue)", operations: keyCount, strata: facade, baseline: direct,
                target: readTarget))
        rows.append(
            Comparison(
                "shared put \(tier.rawValue)", operations: keyCount, strata: facadePut, baseline: directPut,
                target: 1 / 1.5))
        let extraRead = (facade - direct) / Double(keyCount) / roundTrip
        let extraPut = (facadePut - directPut) / Double(keyCount) / roundTrip
        notes.append(
            String(
                format: "%@: a read adds %.1f round trips, a put %.1f", tier.rawValue, extraRead, extraPut))
    }
    print("A shared store (catalog on PostgreSQL) against the tier's own backend on the same servers;")
    print("ratio = tier time / store time")
    Comparison.printTable(rows, baselineName: "tier", ratioName: "ratio")
    print(String(format: "one round trip to PostgreSQL: %.1f µs", roundTrip * 1e6))
    for note in notes { print(note) }
}
