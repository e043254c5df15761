/// One archive import into a store's engine: its entries are staged first, then committed into place all or
/// nothing (a failed commit puts back every file it replaced), then the staging is removed.
///
/// The POSIX engine stages in a folder of the tier and commits by `rename(2)` (`PosixImport`, module `StrataLocalFiles`); any other engine
/// stages in a local temporary folder and commits by writing each file through the engine (``EngineImport``).
package protocol ImportTransaction: AnyObject {
    /// What is at `key` in the store now, or `nil` when nothing is.
    /// - Throws: `.symbolicLink` for a key through or at a link.
    func kind(of key: String) throws -> StoreNodeKind?

    /// Writes the staged file number `index` with what `body` writes (nothing of it is visible in the store).
    func stage(_ index: Int, _ body: (inout FileWriter) throws -> Void) throws

    /// Moves the staged files into place, all or nothing.
    /// - Parameters:
    ///   - staged: Each staged file's number, with its key.
    ///   - newFolders: The folders the import creates (parents first), removed again by a rollback.
    /// - Returns: The keys stored.
    func commit(_ staged: [(index: Int, key: String)], newFolders: [String]) throws -> [String]

    /// Removes the staging (unless a failed rollback kept it for the files it could not put back).
    func finish()
}
