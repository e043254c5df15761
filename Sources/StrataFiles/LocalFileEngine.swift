/// A ``FileEngine`` that keeps each file as a file of a local folder, which a program may reach by path: what the
/// POSIX-only parts of ``FileStore`` need (``FileStore/path(for:creatingParents:)``,
/// ``FileStore/deleteSecurely(_:)``, access times for cache areas).
///
/// ``PosixFileEngine`` adopts it; a store on an engine that does not (an object store) throws `.notBuiltIn` from
/// the operations that need it, naming the engine.
public protocol LocalFileEngine: FileEngine {
    /// The folder that holds the files (a key's file is at `directory + "/" + key`).
    var directory: String { get }

    /// The absolute path of a key's file, refusing anything that could leave the folder.
    /// - Parameters:
    ///   - key: A key that passed the store's checks.
    ///   - creatingParents: Whether to create the folders on the way.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidKey` or `.symbolicLink`.
    func path(for key: String, creatingParents: Bool) throws -> String

    /// Deletes a file after overwriting its bytes with zeros and forcing them to disk.
    /// - Returns: Whether there was a file.
    func deleteSecurely(_ key: String) throws -> Bool

    /// Marks a file used now (its access time), keeping its modification time: what a cache area's
    /// least-recently-used order reads back from ``FileMetadata/accessDate``. Best effort: a failure is ignored.
    func markUsed(_ key: String)
}
