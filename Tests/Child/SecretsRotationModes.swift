import Foundation
import StrataCore
import StrataSecrets
import StrataSystem
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The child modes that drive a keyring's manifest and its key rotation, to be killed in the middle; `false` when
/// `arguments` names none of them.
func runSecretsRotationMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "secrets-set-stop-before-manifest":
        // secrets-set-stop-before-manifest ROOT KEYHEX SERVICE ACCOUNT VALUE: set the item with the manifest's
        // rename made to fail after the item's rename and the folder's flush (both new files are flushed by then),
        // say `between`, and wait to be killed there: the kill point between the two renames. Every item in a file
        // of its own: an item inside the manifest has one rename.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])),
            configuration: SecretsConfiguration(inlineItemLimit: 0))
        FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: "items.manifest")
        do {
            try store.set(arguments[5], service: arguments[3], account: arguments[4])
            say("set")
        } catch let error as StorageError {
            say("between \(error.code)")
        }
        while true { sleep(60) }
    case "secrets-rotate-loop":
        // secrets-rotate-loop ROOT KEYHEX: say `start`, unlock (which finishes an interrupted rotation), say
        // `unlocked`, then rotate over and over, saying `rotated N` (items re-sealed) after each, until killed.
        say("start")
        let provider = KeyProvider.inMemory(key(arguments[2]))
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]),
            configuration: SecretsConfiguration(passwordHashCost: .minimumForTests))
        try store.unlock(with: provider, createIfMissing: false)
        say("unlocked")
        while true { say("rotated \(try store.rotate(with: provider).resealed)") }
    case "secrets-rotate-once":
        // secrets-rotate-once ROOT KEYHEX: one rotation; prints `rotated N` or the error code (run it with another
        // STRATA_DEVICE_ID to be another machine).
        let provider = KeyProvider.inMemory(key(arguments[2]))
        let store = try SecretStore(paths: StoragePaths(root: arguments[1]), unlockingWith: provider)
        do {
            say("rotated \(try store.rotate(with: provider).resealed)")
        } catch let error as StorageError {
            say("error \(error.code)")
        }
    case "secrets-read-loop":
        // secrets-read-loop ROOT KEYHEX SERVICE COUNT: read accounts 0..<COUNT of SERVICE over and over, each
        // expected to hold `value-N`; say `ok` after each full pass, or `error CODE` / `wrong N`, until killed.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
        let count = Int(arguments[4]) ?? 1
        while true {
            var line = "ok"
            for index in 0..<count {
                do {
                    if try store.get(service: arguments[3], account: "\(index)")?.stringValue != "value-\(index)" {
                        line = "wrong \(index)"
                    }
                } catch let error as StorageError {
                    line = "error \(error.code)"
                }
            }
            say(line)
        }
    case "secrets-write-relock":
        // secrets-write-relock ROOT KEYHEX SERVICE COUNT: store `value-N` for accounts 0..<COUNT; when told the
        // key was rotated (`locked`), unlock again and retry, as the error's recovery says; say `relocked` then,
        // and `done` at the end.
        let provider = KeyProvider.inMemory(key(arguments[2]))
        let store = try SecretStore(paths: StoragePaths(root: arguments[1]), unlockingWith: provider)
        for index in 0..<(Int(arguments[4]) ?? 1) {
            do {
                try store.set("value-\(index)", service: arguments[3], account: "\(index)")
            } catch let error as StorageError where error.code == .locked {
                say("relocked")
                try store.unlock(with: provider)
                try store.set("value-\(index)", service: arguments[3], account: "\(index)")
            }
        }
        say("done")
    default:
        return false
    }
    return true
}
