import StrataCore

/// The sizes a new repository uses, stored in its configuration.
public struct BackupOptions: Sendable, Hashable {
    /// The smallest chunk (a file's last may be smaller). The default is 256 KiB.
    public var minimumChunk: Int = 256 << 10
    /// The average chunk on random content (rounded down to a power of two). The default is 1 MiB.
    public var averageChunk: Int = 1 << 20
    /// The largest chunk. The default is 4 MiB.
    public var maximumChunk: Int = 4 << 20
    /// A pack is closed once it reaches this size. The default is 32 MiB.
    public var packSize: Int = 32 << 20

    /// Creates the default options.
    public init() {}

    /// Checks the sizes: 64 bytes ≤ minimum ≤ average ≤ maximum ≤ 64 MiB, and a positive pack size.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument`.
    func validate() throws {
        guard Self.areValid(minimum: minimumChunk, average: averageChunk, maximum: maximumChunk, packSize: packSize)
        else {
            throw StorageError(
                .invalidArgument,
                "chunk sizes must satisfy 64 ≤ minimum ≤ average ≤ maximum ≤ 64 MiB, and the pack size be positive")
        }
    }

    /// Whether sizes satisfy 64 bytes ≤ minimum ≤ average ≤ maximum ≤ 64 MiB with a positive pack size.
    static func areValid(minimum: Int, average: Int, maximum: Int, packSize: Int) -> Bool {
        minimum >= 64 && minimum <= average && average <= maximum && maximum <= 64 << 20 && packSize > 0
    }
}
