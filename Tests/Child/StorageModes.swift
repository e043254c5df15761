import Foundation
import Strata
import StrataCatalog
import StrataTestSupport

/// The child modes that drive ``Storage``; `false` when `arguments` names none of them.
func runStorageMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "storage-moves":
        // storage-moves ROOT START: put key `moved` through the facade forever, cycling its tier, `ack N` after each.
        let storage = try Storage(root: arguments[1])
        var index = Int(arguments[2]) ?? 0
        let start = index
        while true {
            let selection = try storage.put(
                StorageWorkload.moveValue(index), for: "moved", as: StorageWorkload.moveDescriptor(index))
            // Every later put moves the key, and a move is durable when it returns. The first may not be a move (a
            // new key): it is as durable as its tier makes it, and the defaults tier coalesces writes for 50 ms.
            if index == start { try storage.backend(for: selection.tier).flush() }
            say("ack \(index)")
            index += 1
        }
    case "storage-contend":
        // storage-contend ROOT PROCESS ROUNDS: put keys c-0 … c-49 ROUNDS times each, then say `done`.
        let storage = try Storage(root: arguments[1])
        let process = Int(arguments[2]) ?? 0
        for round in 0..<(Int(arguments[3]) ?? 3) {
            for key in 0..<50 {
                let (value, descriptor) = StorageWorkload.contendedWrite(process: process, round: round, key: key)
                try storage.put(value, for: "c-\(key)", as: descriptor)
            }
        }
        say("done")
    case "storage-put-loop":
        // storage-put-loop ROOT KEY START [flush]: put `p-N` (a preference) under KEY through the facade forever, N from
        // START, `ack N` after each (with `flush`, once the suite is written). Most puts leave the key where it is
        // (staged at once); one that finds it elsewhere moves it back to defaults.
        let storage = try Storage(root: arguments[1])
        var index = Int(arguments[3]) ?? 0
        let flushes = arguments.count > 4 && arguments[4] == "flush"
        while true {
            try storage.put(
                Data("p-\(index)".utf8), for: arguments[2], as: DataDescriptor(kind: .preference, estimatedSize: 16))
            if flushes { try storage.defaults.flush() }
            say("ack \(index)")
            index += 1
        }
    case "storage-delete-loop":
        // storage-delete-loop ROOT KEY COUNT: COUNT times, put KEY as a preference (written), delete it, and look: a
        // copy in the suite that the catalog does not record is reported as `orphan N` (the catalog read as it is:
        // `Storage.location(of:)` would adopt the copy).
        // Then `done`.
        let storage = try Storage(root: arguments[1])
        let key = arguments[2]
        for index in 0..<(Int(arguments[3]) ?? 100) {
            try storage.put(Data("d-\(index)".utf8), for: key, as: DataDescriptor(kind: .preference, estimatedSize: 16))
            try storage.defaults.flush()
            try storage.delete(key)
            // Under the key's lock: another process's put of the key after the delete writes the suite and then
            // records the key (so that no entry names a value not yet on disk), holding that lock throughout.
            let orphaned = try storage.catalog.withKeyLock(key) {
                try storage.backend(for: .defaults).contains(key) && storage.catalog.location(of: key) == nil
            }
            if orphaned { say("orphan \(index)") }
        }
        say("done")
    case "storage-move-loop":
        // storage-move-loop ROOT KEY: move KEY to files, then back to defaults, forever, `moved N` after each move.
        let storage = try Storage(root: arguments[1])
        var count = 0
        while true {
            for tier in [Tier.files, .defaults] {
                try storage.move(arguments[2], to: tier)
                count += 1
                say("moved \(count)")
            }
        }
    case "storage-read":
        // storage-read ROOT KEY: read KEY through `Storage(root:)` and say `value V` (V as UTF-8) or `none`.
        let storage = try Storage(root: arguments[1])
        let value = try storage.data(for: arguments[2])
        say(value.map { "value " + String(decoding: $0, as: UTF8.self) } ?? "none")
    case "tier-churn":
        // tier-churn ROOT: run TierChurn's operations from the first, `ack N` after each (durable), forever.
        try runTierChurn(Storage(root: arguments[1]))
    case "storage-put":
        // storage-put ROOT KEY VALUE: set the string VALUE (a preference), flush the defaults tier, say `ack`.
        let storage = try Storage(root: arguments[1])
        try storage.set(arguments[3], for: arguments[2])
        try storage.backend(for: .defaults).flush()
        say("ack")
    case "storage-step":
        // storage-step ROOT OPERATION ARGUMENTS: one change through `Storage(root:)` (the secrets key from the
        // environment), made durable, then `ack`. Operations: `set KEY VALUE` (a preference), `defaults-set KEY VALUE`
        // (through `storage.defaults`), `tier-put TIER KEY VALUE` (the tier's own `put`), `move KEY TIER`,
        // `delete KEY`.
        let storage = try Storage(root: arguments[1])
        let operation = Array(arguments.dropFirst(2))
        switch operation.first {
        case "set":
            try storage.set(operation[2], for: operation[1])
        case "defaults-set":
            try storage.defaults.set(.string(operation[2]), forKey: operation[1])
        case "tier-put":
            try storage.backend(for: Tier(rawValue: operation[1])!).put(Data(operation[3].utf8), for: operation[2])
        case "move":
            try storage.move(operation[1], to: Tier(rawValue: operation[2])!, allowingPlaintext: true)
        case "delete":
            try storage.delete(operation[1])
        default:
            throw StorageError(.invalidArgument, "no storage step \(operation.first ?? "")")
        }
        try storage.backend(for: .defaults).flush()
        say("ack")
    case "storage-backup":
        // storage-backup ROOT REPO KEYFILE: back the store up through `Storage(root:)` (no secrets key given: what the
        // environment holds applies) into a new repository opened with the key file; say `snapshot ID FILES` and the
        // capture's omissions, one `omitted OMISSION` a line, or `error CODE MESSAGE`.
        do {
            let storage = try Storage(root: arguments[1])
            let repository = try BackupRepository.create(at: arguments[2], key: .keyFile(arguments[3]))
            let backup = try storage.backup(to: repository)
            say("snapshot \(backup.snapshot.id) \(backup.capture.fileCount)")
            for omission in backup.capture.omissions { say("omitted \(omission)") }
        } catch let error as StorageError {
            say("error \(error.code) \(error.message)")
        }
    default:
        return false
    }
    return true
}

/// Runs ``TierChurn``'s operations on `storage`, each made durable and acknowledged, until killed.
func runTierChurn(_ storage: Storage) throws {
    var index = 0
    while true {
        let key = TierChurn.key(index)
        let value = TierChurn.value(index)
        switch TierChurn.operation(index) {
        case .storagePut(let tier): try storage.put(value, for: key, as: TierChurn.descriptor(for: tier))
        case .tierPut: try storage.writeThroughTier(value, for: key)
        case .tierDelete: try storage.writeThroughTier(nil, for: key)
        }
        try storage.defaults.flush()
        say("ack \(index)")
        index += 1
    }
}
