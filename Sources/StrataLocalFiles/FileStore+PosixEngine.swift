public import StrataCore
public import StrataFiles

// The files tier's stores on the local disk, the built-in engine (``PosixFileEngine``).

extension FileStore {
    /// Opens the file tier of a store on the local disk, under `<root>/files`, creating its folder (0700).
    ///
    /// On the root of a store that keeps a catalog (one `Storage` has opened), the store's changes are recorded there
    /// while a `Storage` of this process has the root open, and refused with `.conflict` while none has (nothing would
    /// record them): see `Documentation/Storage.md`, "Writing through a tier's own API".
    public convenience init(paths: StoragePaths, configuration: FilesConfiguration = FilesConfiguration()) throws {
        self.init(
            engine: try PosixFileEngine(paths: paths, configuration: configuration), configuration: configuration,
            placement: try TierPlacement(.files, store: "", paths: paths, ledger: configuration.placement))
    }

    /// Opens the file tier under a store root folder.
    public convenience init(root: String, configuration: FilesConfiguration = FilesConfiguration()) throws {
        try self.init(paths: StoragePaths(root: root), configuration: configuration)
    }
}
