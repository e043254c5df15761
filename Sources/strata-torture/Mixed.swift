import Foundation
import Strata
import StrataSystem
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// The mixed scenario: four processes write the same keys at once through `Storage` (putting and moving them between
// tiers, deleting them), through each tier's own API (in the tier the catalog places the key, refused when it has
// moved meanwhile), and through the `strata` tool. Each reads its own write back at once (a stale answer is an older
// value of its own, or none while nobody else deleted it); at the end every key is in at most one tier, the catalog
// has no problem, and each key holds the last write of some process (no acknowledged write lost).

/// What the mixed scenario's writers do.
enum MixedRole: String, CaseIterable {
    case storage, tier, cli
}

/// The key of the mixed scenario's keyring: 32 bytes as 64 hex characters, in `STRATA_SECRETS_KEY` for its children
/// (and the tool they run).
let mixedSecretsKeyHex = String(repeating: "6b", count: 32)

/// The keys the mixed scenario writes.
let mixedKeys = (0..<8).map { "mixed/\($0)" }

/// The tiers `Storage` puts cycle through, and a descriptor for each (a credential may leave secrets: on purpose).
let mixedTiers: [Tier] = [.defaults, .files, .records, .secrets]

func mixedDescriptor(_ tier: Tier) -> DataDescriptor {
    switch tier {
    case .defaults: DataDescriptor(kind: .preference, estimatedSize: 16, allowsPlaintext: true)
    case .secrets: DataDescriptor(kind: .credential, estimatedSize: 16)
    case .records: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true, allowsPlaintext: true)
    case .files: DataDescriptor(kind: .file, estimatedSize: 16, contentType: "application/pdf", allowsPlaintext: true)
    }
}

/// `child-mixed ROLE ROOT ID OPS STRATA`: `ack I KEY VALUE|-` after each write that took effect (`-`: a deletion),
/// `refused I KEY` for a tier write the catalog refused, `stale I KEY GOT` for a read-back that showed an older
/// write of this process, then `done`.
func childMixed(role: MixedRole, root: String, id: Int, operations: Int, tool: String) throws {
    let storage = try Storage(root: root)
    for index in 0..<operations {
        let key = mixedKeys[(index * 7 + id) % mixedKeys.count]
        let value = "\(id):\(index)"
        let deletes = index % (role == .tier ? 4 : 5) == 3
        switch role {
        case .storage:
            if deletes {
                _ = try storage.delete(key)
            } else {
                try storage.put(Data(value.utf8), for: key, as: mixedDescriptor(mixedTiers[(index + id) % 4]))
            }
        case .tier:
            do {
                try storage.writeThroughTier(deletes ? nil : Data(value.utf8), for: key)
            } catch let error as StorageError where error.code == .conflict {
                say("refused \(index) \(key)")
                continue
            }
        case .cli:
            let tier = mixedTiers[(index + id) % 4]
            let arguments =
                deletes
                ? ["rm", key, "--root", root]
                : ["put", key, "--kind", mixedDescriptor(tier).kind.rawValue, "--allow-plaintext", "--root", root]
            let result = try ChildProcess.run(
                URL(fileURLWithPath: tool), arguments, input: deletes ? nil : Data(value.utf8), timeout: 120)
            // `rm` of a key nobody holds says so, and changes nothing: a deletion all the same.
            guard result.status == 0 || (deletes && result.standardError.contains("not-found")) else {
                throw StorageError(.io, "strata \(arguments[0]) failed: \(result.standardError)", key: key)
            }
        }
        try storage.defaults.flush()
        let read = try storage.data(for: key).map { String(decoding: $0, as: UTF8.self) }
        if let read, read != value, read.hasPrefix("\(id):") {
            say("stale \(index) \(key) \(read)")
        } else if deletes, read?.hasPrefix("\(id):") == true {
            say("stale \(index) \(key) \(read!)")
        }
        say("ack \(index) \(key) \(deletes ? "-" : value)")
    }
    say("done")
}

/// Runs the mixed scenario: two `Storage` writers, one tier-API writer and one through the tool, `operations` each.
func mixedScenario(operations: Int, tally: inout Tally) throws {
    let root = try temporaryRoot("mixed")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let tool = LocalPath(me.path).parent.appending("strata").string
    guard FileManager.default.isExecutableFile(atPath: tool) else {
        tally.untyped += 1
        tally.notes.append("no strata tool beside strata-torture at \(tool): build every product first")
        return
    }
    let key = KeyProvider.inMemory(Secret(Data(repeating: 0x6b, count: 32)))
    _ = try Storage(root: root, secretsKey: key)  // The store, before the race.
    let roles: [MixedRole] = [.storage, .storage, .tier, .cli]
    let children = try roles.enumerated().map { id, role in
        try ChildProcess(
            me, ["child-mixed", role.rawValue, root, "\(id)", "\(operations)", tool],
            environment: ["STRATA_SECRETS_KEY": mixedSecretsKeyHex])
    }
    var lastWrites: [String: Set<String>] = [:]
    for child in children {
        let result = child.wait()
        guard result.status == 0, child.lines.last == "done" else {
            if result.wasSignalled { tally.crashes += 1 } else { tally.untyped += 1 }
            tally.notes.append(result.failureSummary)
            continue
        }
        var last: [String: String] = [:]
        for line in child.lines {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "ack":
                tally.rounds += 1
                last[words[2]] = words[3]
            case "refused": tally.faults += 1
            case "stale":
                tally.lost += 1
                tally.notes.append("stale read: \(line)")
            default: break
            }
        }
        for (key, value) in last { lastWrites[key, default: []].insert(value) }
    }
    // Quiet now: every key in at most one tier, the catalog sound, and each holding some process's last write.
    let storage = try Storage(root: root, secretsKey: key)
    let report = try storage.verifyCatalog()
    if !report.problems.isEmpty {
        tally.unopenable += report.problems.count
        tally.notes += report.problems.map { "catalog: \($0)" }
    }
    for key in mixedKeys {
        tally.checked += 1
        let holders: [Tier]
        let value: String
        do {
            holders = try Tier.allCases.filter { try storage.backend(for: $0).contains(key) }
            value = try storage.data(for: key).map { String(decoding: $0, as: UTF8.self) } ?? "-"
        } catch {
            // A key the store cannot answer for (copies in two tiers that the catalog does not place) is a finding.
            tally.lost += 1
            tally.notes.append("\(key) cannot be read: \(error)")
            continue
        }
        if holders.count > (value == "-" ? 0 : 1) {
            tally.lost += 1
            tally.notes.append("\(key) has copies in \(holders)")
        }
        if let candidates = lastWrites[key], !candidates.contains(value) {
            tally.lost += 1
            tally.notes.append("\(key) holds \(value), which is no process's last write (\(candidates.sorted()))")
        }
    }
}
