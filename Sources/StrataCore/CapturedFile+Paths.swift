extension CapturedFile {
    /// `path` relative to `root`, for ``path``.
    /// - Throws: ``StorageError`` `.invalidArgument` when `path` is not under `root`: a tier whose files live
    ///   elsewhere cannot be captured as part of the store.
    public static func relativePath(_ path: String, root: String, tier: Tier?) throws -> String {
        let base = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(base), path.count > base.count else {
            throw StorageError(
                .invalidArgument, "the file is not under the store root, so a capture of the store cannot hold it",
                tier: tier, path: path)
        }
        return String(path.dropFirst(base.count))
    }
}
