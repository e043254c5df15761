import Foundation
import StrataCore
import StrataSecrets
import StrataSystem

/// The child modes that write batches of secrets, to be killed in the middle or to count what a write costs;
/// `false` when `arguments` names none of them.
func runSecretsBatchMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "secrets-batch-loop":
        // secrets-batch-loop ROOT KEYHEX COUNT START: set accounts b0..b<COUNT-1> of service `batch` to
        // "value N" in one batch, for N = START, START+1, ..., saying `ack N` after each.
        try writeBatches(arguments) { generation, index in
            SecretWrite(Secret("value \(generation)"), service: "batch", account: "b\(index)")
        }
    case "secrets-batch-new-loop":
        // secrets-batch-new-loop ROOT KEYHEX COUNT START: store accounts g<N>-0..g<N>-<COUNT-1> of service `new`,
        // all new, with the value "value N" in one batch, for N = START, START+1, ..., saying `ack N` after each.
        try writeBatches(arguments) { generation, index in
            SecretWrite(Secret("value \(generation)"), service: "new", account: "g\(generation)-\(index)")
        }
    case "secrets-count-fsyncs":
        // secrets-count-fsyncs ROOT KEYHEX COUNT [files]: the fsyncs (syncfs and fdatasync included) of one
        // replacing set, and of one batch replacing COUNT items; the files opened and the sealed boxes opened by a
        // get just after that write, and by one once the files are settled (with its stats), and the order of one
        // set's write-backs, flushes and renames: says `set S batch B get-opens G get-boxes X settled-opens G
        // settled-stats T settled-boxes X set-order writeback,fsync,...`. With `files`, every item in a file of its
        // own (none inside the manifest).
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])),
            configuration: SecretsConfiguration(
                inlineItemLimit: arguments.count > 4 && arguments[4] == "files" ? 0 : 1024))
        let count = Int(arguments[3]) ?? 1
        let writes = (0..<count).map { SecretWrite(Secret("value \($0)"), service: "count", account: "c\($0)") }
        try store.set("first", service: "count", account: "single")
        try store.set(writes)
        FaultInjector.shared.startCounting()
        try store.set("second", service: "count", account: "single")
        let single = FaultInjector.shared.seenCount(of: .fsync)
        let order = FaultInjector.shared.seenCalls.filter { [.writeback, .fsync, .rename].contains($0) }
        FaultInjector.shared.startCounting()
        try store.set(writes)
        let batch = FaultInjector.shared.seenCount(of: .fsync)
        _ = try store.get(service: "count", account: "single")  // Reads the manifest the batch changed.
        FaultInjector.shared.startCounting()
        let boxes = SecretStore.boxesOpened
        _ = try store.get(service: "count", account: "single")
        let fresh = (opens: FaultInjector.shared.seenCount(of: .open), boxes: SecretStore.boxesOpened - boxes)
        Thread.sleep(forTimeInterval: SecretStore.settlingTime + 0.1)
        _ = try store.get(service: "count", account: "single")  // Reads both files again, now settled.
        FaultInjector.shared.startCounting()
        let settledBoxes = SecretStore.boxesOpened
        _ = try store.get(service: "count", account: "single")
        say(
            "set \(single) batch \(batch) get-opens \(fresh.opens) get-boxes \(fresh.boxes) "
                + "settled-opens \(FaultInjector.shared.seenCount(of: .open)) "
                + "settled-stats \(FaultInjector.shared.seenCount(of: .stat)) "
                + "settled-boxes \(SecretStore.boxesOpened - settledBoxes) "
                + "set-order \(order.map(\.rawValue).joined(separator: ","))")
    default:
        return false
    }
    return true
}

/// Writes batches of COUNT items (`item(generation, index)`) for generations START, START + 1, ... until killed,
/// saying `ack N` after each: the loop of `secrets-batch-loop` and `secrets-batch-new-loop` (ROOT KEYHEX COUNT
/// START).
private func writeBatches(_ arguments: [String], _ item: (Int, Int) -> SecretWrite) throws -> Never {
    let store = try SecretStore(paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
    let count = Int(arguments[3]) ?? 1
    var generation = Int(arguments[4]) ?? 0
    while true {
        try store.set((0..<count).map { item(generation, $0) })
        say("ack \(generation)")
        generation += 1
    }
}
