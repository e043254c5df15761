public import StrataCore
import StrataSystem

// Checking suite files without opening a store on them: opening moves an unreadable file aside and starts the
// suite empty, which is right for an app but hides the damage from `strata verify` and from a restore.
extension DefaultsStore {
    /// The suite files under `paths` that a store would not read, each as a typed error naming the tier, the suite
    /// (``/StrataCore/StorageError/collection``) and the file's path: `.corrupt` for content that does not decode (or
    /// is not a dictionary, or expands beyond the limit), `.unsupportedVersion` for a newer binary property list,
    /// or the error reading it. Nothing is moved or changed.
    ///
    /// ```swift
    /// for problem in DefaultsStore.unreadableSuites(paths: StoragePaths(root: root)) { print(problem) }
    /// ```
    /// - Parameters:
    ///   - paths: The store's paths; a store without a `defaults/` folder has no unreadable suite.
    ///   - configuration: Its ``DefaultsConfiguration/suiteBudget`` bounds what is read, as a store would.
    /// - Returns: One error per unreadable suite file, in name order.
    public static func unreadableSuites(
        paths: StoragePaths, configuration: DefaultsConfiguration = DefaultsConfiguration()
    ) -> [StorageError] {
        let folder: DirectoryHandle
        let names: [String]
        do throws(StorageError) {
            guard let opened = try paths.openDirectory(for: .defaults, create: false) else { return [] }
            folder = opened
            names = try folder.entries(of: .defaults).filter { $0.hasSuffix(".plist") }.sorted()
        } catch {
            return [error]
        }
        let limit = readLimit(configuration)
        return names.compactMap { name -> StorageError? in
            let path = folder.path(of: name)
            let suite = String(name.dropLast(".plist".count))
            do {
                guard let (data, _) = try readFile(name, in: folder, path: path, limit: limit) else { return nil }
                _ = try decodeSuite(data, path: path, limit: limit)
                return nil
            } catch let problem as PropertyListError {
                var error = StorageError(
                    .corrupt, "the suite file does not decode: \(problem)", tier: .defaults, path: path,
                    recovery: "Restore the suite from a backup, or open it to move it aside and start it empty")
                error.collection = suite
                return error
            } catch {
                var failure =
                    (error as? StorageError)
                    ?? StorageError(.io, "cannot read the suite file: \(error)", tier: .defaults, path: path)
                failure.collection = suite
                return failure
            }
        }
    }
}
