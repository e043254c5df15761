public import Foundation
public import Strata

extension Storage {
    /// Writes `value` — or removes the key, for `nil` — through the own typed API of the tier the catalog places `key`
    /// in (files when it places it nowhere), as an app that uses `storage.defaults`, `storage.secrets`,
    /// `storage.records` or `storage.files` directly would: what the tests that mix such writers with `Storage`'s own
    /// do.
    /// - Throws: What the tier throws (`conflict` when the key has moved to another tier meanwhile).
    public func writeThroughTier(_ value: Data?, for key: String) throws {
        let tier = try location(of: key)?.tier ?? .files
        switch (tier, value) {
        case (.defaults, let value?): try defaults.set(.data(value), forKey: key)
        case (.defaults, nil): try defaults.removeObject(forKey: key)
        case (.secrets, let value?):
            try secrets.set(
                Secret(value), service: SecretStore.storageBackendService, account: key,
                accessibility: .afterFirstUnlock)
        case (.secrets, nil): try secrets.delete(service: SecretStore.storageBackendService, account: key)
        case (.records, let value?): try records.put(value, for: key)
        case (.records, nil): try records.delete(key)
        case (.files, let value?): try files.write(value, to: key)
        case (.files, nil): try files.delete(key)
        }
    }
}
