package import StrataSystem

extension Errno {
    /// Wraps this code into a ``StorageError`` with context.
    package func storageError(
        _ message: String, tier: Tier? = nil, key: String? = nil, path: String? = nil
    ) -> StorageError {
        StorageError.system(code, message, tier: tier, key: key, path: path)
    }
}
