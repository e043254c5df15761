public import StrataCore
public import StrataRecords

// The records tier's stores on SQLite, the built-in engine: a file of its own, or `<root>/records/<name>.sqlite`.

extension RecordStore {
    /// Opens (creating if needed) the SQLite store at `path` and runs the migrations the file has not seen.
    /// - Parameters:
    ///   - path: The database file.
    ///   - configuration: Durability, busy timeout, readers. The default is
    ///     ``/StrataRecords/RecordsConfiguration/init(durability:busyTimeoutMilliseconds:readerCount:observationIntervalMilliseconds:)``.
    ///   - migrations: The app's versioned migrations, in any order.
    /// - Throws: ``/StrataCore/StorageError``: `.corrupt` for a damaged or non-SQLite file, `.invalidArgument` for a
    ///   SQLite file that is not a Strata store, `.unsupportedVersion` for a store newer than this code or than the
    ///   migrations given, or what a migration throws (the file is then unchanged).
    public convenience init(
        path: String, configuration: RecordsConfiguration = RecordsConfiguration(), migrations: [Migration] = []
    ) throws {
        try self.init(
            engine: try SQLiteRecordEngine(path: path, configuration: configuration), migrations: migrations)
    }

    /// Opens the SQLite store `<root>/records/<name>.sqlite`.
    public convenience init(
        name: String, paths: StoragePaths, configuration: RecordsConfiguration = RecordsConfiguration(),
        migrations: [Migration] = []
    ) throws {
        guard Self.isValidName(name) else {
            throw StorageError(
                .invalidArgument, "a store name is letters, digits and '_' (at most 64)", tier: .records, key: name)
        }
        let path = try paths.path(for: name + ".sqlite", in: .records, createParents: true)
        var configuration = configuration
        if configuration.filePermissions == nil {
            configuration.filePermissions = paths.sharing == .group ? 0o660 : 0o600
        }
        try self.init(
            engine: try SQLiteRecordEngine(path: path, configuration: configuration), migrations: migrations,
            placement: TierPlacement(.records, store: name, paths: paths, ledger: configuration.placement))
    }
}
