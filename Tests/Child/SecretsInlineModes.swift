import Foundation
import StrataCore
import StrataSecrets

/// The child modes that write items moving between the keyring's manifest and files of their own (issue 18 item
/// 4); `false` when `arguments` names none of them.
func runSecretsInlineMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "secrets-move-loop":
        // secrets-move-loop ROOT KEYHEX COUNT START: for generations START, START + 1, ... until killed, set the
        // COUNT items `move/m<i>` one by one to `movingValue(generation, i)` — small (inside the manifest) or over
        // 2 KiB (a file of its own) by turns, so each write moves its item one way or the other, or keeps it
        // small — and say `ack N` after each generation.
        try moveLoop(arguments) { store, generation, count in
            for index in 0..<count {
                try store.set(movingValue(generation, index), service: "move", account: "m\(index)")
            }
        }
    case "secrets-move-batch-loop":
        // secrets-move-batch-loop ROOT KEYHEX COUNT START: as `secrets-move-loop`, each generation one batch.
        try moveLoop(arguments) { store, generation, count in
            try store.set(
                (0..<count).map {
                    SecretWrite(Secret(movingValue(generation, $0)), service: "move", account: "m\($0)")
                })
        }
    default:
        return false
    }
}

/// Writes generation after generation with `write(store, generation, count)` from START on, saying `ack N` after
/// each, until killed (ROOT KEYHEX COUNT START).
private func moveLoop(_ arguments: [String], _ write: (SecretStore, Int, Int) throws -> Void) throws -> Never {
    let store = try SecretStore(paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
    let count = Int(arguments[3]) ?? 1
    var generation = Int(arguments[4]) ?? 0
    while true {
        try write(store, generation, count)
        say("ack \(generation)")
        generation += 1
    }
}

/// The value of item `index` at `generation` in the move loops: over 2 KiB (too large for the manifest) when
/// `generation + index` is a multiple of 3, small otherwise. The tests compute the same.
func movingValue(_ generation: Int, _ index: Int) -> String {
    let value = "value \(generation) \(index)"
    return (generation + index) % 3 == 0 ? value + String(repeating: ".", count: 2048) : value
}
