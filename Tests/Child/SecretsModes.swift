import Foundation
import Strata
import StrataTestSupport

/// The child modes that drive a keyring as another machine or another program would; `false` when `arguments`
/// names none of them.
func runSecretsMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "secrets-migrate":
        // secrets-migrate ROOT KEYHEX SERVICE: list, export and deleteAll(SERVICE) as a machine would that got the
        // keyring folder by copy (run it with another STRATA_DEVICE_ID); one line per step, or the error code.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])),
            configuration: SecretsConfiguration(passwordHashCost: .minimumForTests))
        do {
            let listing = try store.listing()
            say(
                "listed \(listing.items.map(\.account).joined(separator: ",")) skipped \(listing.otherDeviceItems.map { $0.item.map { "\($0.service)/\($0.account)" } ?? "?" }.sorted().joined(separator: ","))"
            )
            let export = try store.exportItems(protectedBy: Secret("archive"))
            say("exported \(export.count) skipped \(export.skipped.count)")
            say("deleted \(try store.deleteAll(service: arguments[3])) left \(store.itemCount)")
        } catch let error as StorageError {
            say("error \(error.code)")
        }
    case "secrets-unlock-key-file":
        // secrets-unlock-key-file ROOT PATH: unlock (creating) the keyring with the key file PATH; prints
        // `unlocked` or the error code. A FIFO at PATH must be refused, not waited on.
        let store = try SecretStore(paths: StoragePaths(root: arguments[1]))
        do {
            try store.unlock(with: .keyFile(arguments[2]))
            say("unlocked")
        } catch let error as StorageError {
            say("error \(error.code)")
        }
    case "storage-secret-put":
        // storage-secret-put ROOT KEY VALUE: store VALUE under KEY through `Storage`, unlocked by STRATA_SECRETS_KEY,
        // as an application would.
        let storage = try Storage(root: arguments[1])
        try storage.put(
            Data(arguments[3].utf8), for: arguments[2],
            as: DataDescriptor(kind: .credential, estimatedSize: arguments[3].utf8.count))
        say("stored")
    default:
        return false
    }
    return true
}
