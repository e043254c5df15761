/// The repository's `config` file: a ``SealedFile`` of kind 1 named `config`, holding this as JSON.
struct RepositoryConfiguration: Codable, Sendable {
    /// The JSON's format version (1).
    var version: Int
    /// A random id (64 hex digits).
    var id: String
    var minimumChunk: Int
    var averageChunk: Int
    var maximumChunk: Int
    /// The size at which a pack is closed.
    var packSize: Int

    /// The chunker these sizes describe, or `nil` when they are impossible.
    func chunker(keys: RepositoryKeys) -> Chunker? {
        guard
            BackupOptions.areValid(
                minimum: minimumChunk, average: averageChunk, maximum: maximumChunk, packSize: packSize)
        else { return nil }
        return Chunker(table: keys.gearTable(), minimum: minimumChunk, average: averageChunk, maximum: maximumChunk)
    }
}
