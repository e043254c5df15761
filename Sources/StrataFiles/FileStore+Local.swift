import StrataCore

// What only an engine with a local folder can do, asked of the engine (`LocalFileEngine`).
extension FileStore {
    /// The absolute path of a key's file on the local disk, refusing anything that could leave the store.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidKey` or `.symbolicLink` for a refused key, or `.notBuiltIn` on
    ///   an engine that keeps no local files (an object store).
    public func path(for key: String, creatingParents: Bool = false) throws -> String {
        try check(key)
        return try localEngine(for: "give a file's path", key: key).path(for: key, creatingParents: creatingParents)
    }

    /// The engine as a ``LocalFileEngine``, or `.notBuiltIn` naming the engine and what it cannot do.
    func localEngine(for action: String, key: String?) throws -> any LocalFileEngine {
        guard let local = engine as? any LocalFileEngine else {
            throw StorageError(
                .notBuiltIn, "the '\(engine.name)' files engine keeps no local files, so it cannot \(action)",
                tier: .files, key: key,
                recovery: "Use a store on the local disk (PosixFileEngine) for this, or read and write the file "
                    + "through the store")
        }
        return local
    }
}
