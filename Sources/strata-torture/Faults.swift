import Foundation
import StrataCore
import StrataDefaults
import StrataFiles
import StrataLocalFiles
import StrataRecords
import StrataSQLite
import StrataSecrets
import StrataSystem
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One write of a tier, and a read of what it wrote, for fault injection.
struct FaultTarget {
    var tier: String
    var write: @Sendable (String, String) throws -> Void  // (root, value)
    var read: @Sendable (String) throws -> String?  // root → the value now
}

let faultTargets: [FaultTarget] = [
    FaultTarget(
        tier: "defaults",
        write: { root, value in
            let store = try DefaultsStore(
                root: root, configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
            try store.set(.string(value), forKey: "k")
        },
        read: { root in
            let store = try DefaultsStore(
                root: root, configuration: DefaultsConfiguration(watchesExternalChanges: false))
            guard store.recoveries.isEmpty else { throw StorageError(.corrupt, "the suite needed recovery") }
            if case .string(let text)? = store.object(forKey: "k") { return text }
            return nil
        }),
    FaultTarget(
        tier: "secrets",
        write: { root, value in
            try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey).set(
                value, service: "s", account: "k")
        },
        read: { root in
            try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey).get(service: "s", account: "k")?
                .stringValue
        }),
    FaultTarget(
        tier: "records (JSON Lines export)",
        write: { root, value in
            // SQLite does its own I/O, outside our seam: faults reach the records tier through its export path.
            let store = try RecordStore(name: "faults", paths: StoragePaths(root: root))
            let items = try store.collection(BatchItem.self, named: "items")
            try items.upsert(BatchItem(id: "k", batch: 0, payload: value))
            try items.exportJSONLines(to: root + "/export.jsonl")
        },
        read: { root in
            guard let data = FileManager.default.contents(atPath: root + "/export.jsonl") else { return nil }
            let record = try data.withUnsafeBytes {
                try JSONValue.parse(UnsafeRawBufferPointer(rebasing: $0.dropLast()))
            }
            if case .string(let text)? = record["payload"] { return text }
            throw StorageError(.corrupt, "the export holds no payload")
        }),
    FaultTarget(
        tier: "files",
        write: { root, value in try FileStore(root: root).write(Data(value.utf8), to: "dir/k.txt") },
        read: { root in try FileStore(root: root).readIfPresent("dir/k.txt").map { String(decoding: $0, as: UTF8.self) }
        }),
    FaultTarget(
        tier: "files (copy under both locks, group-shared root)",
        write: { root, value in
            let store = try FileStore(paths: StoragePaths(root: root, sharing: .group))
            try store.write(Data(value.utf8), to: "src/k.txt")
            try store.copy("src/k.txt", to: "dst/k.txt")
        },
        read: { root in
            try FileStore(paths: StoragePaths(root: root, sharing: .group)).readIfPresent("dst/k.txt").map {
                String(decoding: $0, as: UTF8.self)
            }
        }),
]

/// Every fault kind at every system call of one write, for each tier: the write succeeds or throws a
/// `StorageError`, and the store then opens and holds the old value or the new one.
func faultScenario(_ target: FaultTarget, tally: inout Tally) throws {
    // A release build's seam never consults the injector: every "injection" would pass unnoticed.
    guard FaultInjector.isCompiledIn else {
        throw WrongValue(description: "faults need a debug build of strata-torture (STRATA_FAULT_INJECTION)")
    }
    let kinds: [(String, InjectedFault)] = [
        ("ENOSPC", .error(ENOSPC)), ("EIO", .error(EIO)), ("EINTR", .interrupt), ("short write", .shortWrite(3)),
    ]
    let root = try temporaryRoot("faults")
    defer { try? FileManager.default.removeItem(atPath: root) }
    try target.write(root, "old")
    // Count the calls one write makes.
    FaultInjector.shared.startCounting()
    try target.write(root, "old")
    let counts = SystemCall.allCases.map { ($0, FaultInjector.shared.seenCount(of: $0)) }.filter { $0.1 > 0 }
    FaultInjector.shared.reset()
    for (call, count) in counts {
        for step in 0..<count {
            for (_, fault) in kinds {
                if case .shortWrite = fault, call != .write { continue }
                try target.write(root, "old")
                FaultInjector.shared.inject(fault, on: call, pathContaining: root, after: step)
                tally.rounds += 1
                do {
                    try target.write(root, "new")
                } catch is StorageError {
                } catch {
                    tally.untyped += 1
                    tally.notes.append("\(call) step \(step): \(error)")
                }
                tally.faults += FaultInjector.shared.injectedCount
                FaultInjector.shared.reset()
                tally.checked += 1
                do {
                    let value = try target.read(root)
                    if value != "old" && value != "new" {
                        tally.lost += 1
                        tally.notes.append("\(call) step \(step): read \(value ?? "nothing")")
                    }
                } catch {
                    tally.unopenable += 1
                    tally.notes.append("\(call) step \(step): \(error)")
                }
            }
        }
    }
}
