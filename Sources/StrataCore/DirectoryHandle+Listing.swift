extension DirectoryHandle {
    /// The names in this folder, unsorted, or a ``StorageError`` naming the folder and `tier`.
    package func entries(of tier: Tier?) throws(StorageError) -> [String] {
        do throws(Errno) {
            return try entries()
        } catch {
            throw error.storageError("cannot list the folder", tier: tier, path: path)
        }
    }
}
