import Foundation
import StrataCore
import StrataSecrets
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
        // write made to fail after the item file is durable, say `between`, and wait to be killed there.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: "items.manifest")
        do {
            try store.set(arguments[5], service: arguments[3], account: arguments[4])
            say("set")
        } catch let error as StorageError {
            say("between \(error.code)")
        }
        while true { sleep(60) }
    default:
        return false
    }
    return true
}
