import Foundation
import StrataCore
import StrataDefaults
import StrataFiles
import StrataLocalFiles
import StrataPostgres
import StrataRecords
import StrataSQLite
import StrataSecrets
import StrataTestSupport

/// The key every torture child and check uses for the secrets tier.
let tortureKey = KeyProvider.inMemory(Secret(Data((0..<32).map { UInt8($0 * 7) })))

let fileSize = 100_000

/// Child: writes forever, printing `ack N` after each durable write. Killed by the parent.
func childWrite(tier: String, root: String, start: Int) throws -> Never {
    let paths = try StoragePaths(root: root)
    var index = start
    switch tier {
    case "defaults":
        let store = try DefaultsStore(paths: paths, configuration: DefaultsConfiguration(watchesExternalChanges: false))
        while true {
            try store.set(.integer(Int64(index)), forKey: "key-\(index)")
            try store.flush()
            say("ack \(index)")
            index += 1
        }
    case "secrets":
        let store = try SecretStore(paths: paths, unlockingWith: tortureKey)
        while true {
            try store.set("value \(index)", service: "torture", account: "a-\(index)")
            say("ack \(index)")
            index += 1
        }
    case "records", "postgres":
        let store = try tortureRecordStore(tier, paths)
        let items = try store.collection(BatchItem.self, named: "items")
        while true {
            try store.write { transaction in
                for part in 0..<10 {
                    try transaction(items).insert(
                        BatchItem(id: "\(index)-\(part)", batch: index, payload: String(repeating: "x", count: 150)))
                }
            }
            say("ack \(index)")
            index += 1
        }
    default:
        let store = try FileStore(paths: paths)
        while true {
            try store.write(VersionedContent.make(version: index, size: fileSize), to: "f-\(index % 16)")
            say("ack \(index)")
            index += 1
        }
    }
}

/// Parent: checks every acknowledged write after a kill.
func checkAcknowledged(tier: String, root: String, acks: [Int], tally: inout Tally) {
    do {
        let paths = try StoragePaths(root: root)
        switch tier {
        case "defaults":
            let store = try DefaultsStore(
                paths: paths, configuration: DefaultsConfiguration(watchesExternalChanges: false))
            if !store.recoveries.isEmpty { tally.unopenable += 1 }
            for ack in acks {
                tally.checked += 1
                if store.object(forKey: "key-\(ack)") != .integer(Int64(ack)) { tally.lost += 1 }
            }
        case "secrets":
            let store = try SecretStore(paths: paths, unlockingWith: tortureKey)
            for ack in acks {
                tally.checked += 1
                if (try? store.get(service: "torture", account: "a-\(ack)")?.stringValue) != "value \(ack)" {
                    tally.lost += 1
                }
            }
        case "records", "postgres":
            let store = try tortureRecordStore(tier, paths)
            if try !store.verify().isEmpty { tally.unopenable += 1 }
            let items = try store.collection(BatchItem.self, named: "items")
            let sizes = Dictionary(grouping: try items.fetch(), by: \.batch).mapValues(\.count)
            tally.lost += sizes.values.filter { $0 != 10 }.count  // A partial transaction.
            for ack in acks {
                tally.checked += 1
                if sizes[ack] != 10 { tally.lost += 1 }
            }
        default:
            let store = try FileStore(paths: paths)
            var latest: [Int: Int] = [:]
            for ack in acks { latest[ack % 16] = max(latest[ack % 16] ?? 0, ack) }
            for (slot, ack) in latest {
                tally.checked += 1
                guard let data = try store.readIfPresent("f-\(slot)"),
                    let version = VersionedContent.version(of: data, size: fileSize),
                    version >= ack
                else {
                    tally.lost += 1
                    continue
                }
            }
            if try !store.verify().filter({ $0.kind != .unrecorded }).isEmpty { tally.unopenable += 1 }
        }
    } catch {
        tally.unopenable += 1
        tally.notes.append("\(error)")
    }
}

/// Child: `count` read-modify-write increments of one shared counter.
func childContend(tier: String, root: String, count: Int) throws {
    let paths = try StoragePaths(root: root)
    switch tier {
    case "defaults":
        let store = try DefaultsStore(paths: paths, configuration: DefaultsConfiguration(watchesExternalChanges: false))
        for _ in 0..<count { try store.update(DefaultsKey("counter", default: 0)) { $0 + 1 } }
    case "secrets":
        let store = try SecretStore(paths: paths, unlockingWith: tortureKey)
        for _ in 0..<count {
            try store.update(service: "torture", account: "counter") { old in
                let current = (old?.stringValue).flatMap { Int($0) } ?? 0
                return Secret("\(current + 1)")
            }
        }
    case "records", "postgres":
        let store = try tortureRecordStore(tier, paths)
        let counters = try store.collection(Counter.self, named: "counters")
        for _ in 0..<count {
            try store.write { transaction in
                var counter = try transaction(counters).get(id: "c") ?? Counter(id: "c", value: 0)
                counter.value += 1
                try transaction(counters).upsert(counter)
            }
        }
    default:
        let store = try FileStore(paths: paths)
        for _ in 0..<count {
            try store.update("counter") { old in
                Data("\((old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0) + 1)".utf8)
            }
        }
    }
}

func readCounter(tier: String, root: String) throws -> Int {
    let paths = try StoragePaths(root: root)
    switch tier {
    case "defaults":
        return try DefaultsStore(paths: paths, configuration: DefaultsConfiguration(watchesExternalChanges: false))[
            DefaultsKey("counter", default: 0)]
    case "secrets":
        return try SecretStore(paths: paths, unlockingWith: tortureKey).get(service: "torture", account: "counter")?
            .stringValue.flatMap(Int.init) ?? 0
    case "records", "postgres":
        return try tortureRecordStore(tier, paths).collection(Counter.self, named: "counters").get(id: "c")?
            .value ?? 0
    default:
        return try FileStore(paths: paths).readIfPresent("counter").flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            ?? 0
    }
}

/// The records tier's store for a scenario: the SQLite file under `paths`, or for `postgres` a schema on the
/// server in `STRATA_POSTGRES_URL`, named after the scenario's root so parent and children open the same one.
func tortureRecordStore(_ tier: String, _ paths: StoragePaths) throws -> RecordStore {
    guard tier == "postgres" else { return try RecordStore(name: "torture", paths: paths) }
    return try PostgresRecordEngine.store(try tortureSchema(paths.root))
}

func tortureSchema(_ root: String) throws -> PostgresConfiguration {
    guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else {
        throw StorageError(.invalidArgument, "the postgres tier needs STRATA_POSTGRES_URL")
    }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in root.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return PostgresConfiguration(connectionString: url, schema: "torture_" + String(hash, radix: 36))
}
