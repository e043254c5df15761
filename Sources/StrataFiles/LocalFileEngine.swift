/// A ``FileEngine`` that keeps each file as a file of a local folder, which a program may reach by path: what the
/// POSIX-only parts of ``FileStore`` need (``FileStore/path(for:creatingParents:)``).
///
/// `PosixFileEngine` (module `StrataLocalFiles`) adopts it; a store on an engine that does not (an object store) throws `.notBuiltIn` from
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
}
