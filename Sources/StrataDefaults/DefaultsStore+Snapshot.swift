public import StrataCore

extension DefaultsStore {
    /// A suite's keys and values as its file holds them now, read without opening the suite: nothing is created,
    /// locked, cleaned up or moved aside, so a tool that only looks (`strata defaults list`) leaves the store as it
    /// was. No lock is needed: a suite file is only ever replaced whole, by rename.
    ///
    /// ```swift
    /// let values = try DefaultsStore.snapshot(suite: "standard", paths: try StoragePaths(root: root, create: false))
    /// values["theme"]   // .string("dark"), or nil
    /// ```
    /// - Parameters:
    ///   - suite: The suite. The default is `standard`.
    ///   - paths: The store.
    ///   - configuration: Its ``DefaultsConfiguration/suiteBudget`` bounds what is read. The default is the
    ///     built-in configuration.
    /// - Returns: The values, by exact key; empty when the suite or the defaults folder does not exist.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` for a bad suite name; `.corrupt` (with the
    ///   path) for a file that is not a suite, left where it is (the next ``DefaultsStore`` that opens the suite
    ///   moves it aside); `.unsupportedVersion` for a newer plist format; `.symbolicLink` or an I/O error.
    public static func snapshot(
        suite: String = "standard", paths: StoragePaths, configuration: DefaultsConfiguration = DefaultsConfiguration()
    ) throws -> [ExactString: PropertyListValue] {
        try validateSuiteName(suite)
        guard let folder = try paths.openDirectory(for: .defaults, create: false) else { return [:] }
        let path = paths.directoryPath(for: .defaults) + "/" + suite + ".plist"
        let limit = readLimit(configuration)
        guard let (data, _) = try readFile(suite + ".plist", in: folder, path: path, limit: limit) else { return [:] }
        do {
            return try decodeSuite(data, path: path, limit: limit)
        } catch let error as PropertyListError {
            throw StorageError(
                .corrupt, "the suite file is not a property list dictionary: \(error)", tier: .defaults, path: path,
                recovery: "Open the suite with a program that writes it: it moves the file aside and starts empty")
        }
    }

    /// Checks that a suite name is one safe file name.
    /// - Throws: ``StorageError`` `.invalidArgument` naming what is wrong.
    package static func validateSuiteName(_ suite: String) throws(StorageError) {
        do {
            try StoragePaths.validateKey(suite)
        } catch {
            throw StorageError(
                .invalidArgument, "the suite name is not a safe file name: \(error.message)", tier: .defaults,
                key: suite)
        }
        guard !suite.contains("/"), suite.utf8.count <= 200 else {
            throw StorageError(
                .invalidArgument, "the suite name must be one file name of at most 200 bytes", tier: .defaults,
                key: suite)
        }
    }
}
