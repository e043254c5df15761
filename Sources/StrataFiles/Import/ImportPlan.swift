import StrataCore

/// What an archive import will store, worked out from the archive's directory before anything is extracted:
/// the key of every file, and every folder the files need.
///
/// Refused here, each with a typed error naming the entry (in `key`) and the archive (in `path`):
/// - a name that is not a valid key under the destination (`..`, absolute, `a//b`, `./a`, ...): `.invalidKey`;
/// - two entries with the same name, compared by Unicode scalars (``ExactString``: `café` spelled NFC and NFD
///   are two different names, stored as two files): `.invalidArgument`;
/// - an entry that is a file where another needs a folder (`sub` and `sub/`, `a` and `a/b`, at any depth, in
///   either order): `.invalidArgument`;
/// - a total size past ``ImportLimits/maximumTotalSize`` (summed without overflow): `.limitExceeded`.
package struct ImportPlan {
    /// The entries to extract, in archive order, with their keys.
    var files: [(entry: ZipReader.Entry, key: String)] = []
    /// Every folder the import needs (parents first), with the entry that first needs it.
    var folders: [(key: String, entry: String)] = []

    init(entries: [ZipReader.Entry], prefix: String, limits: ImportLimits, archive: String) throws {
        let base = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
        var fileKeys: Set<ExactString> = []
        var folderKeys: Set<ExactString> = []
        var total = 0
        for entry in entries {
            let key =
                base
                + (entry.isDirectory
                    ? String(String.UnicodeScalarView(entry.name.unicodeScalars.dropLast())) : entry.name)
            do {
                try StoragePaths.validateKey(key)
            } catch {
                throw StorageError(
                    .invalidKey,
                    "an archive entry's name is refused, as it could land outside the destination: \(error.message)",
                    tier: .files, key: entry.name, path: archive, recovery: error.recovery)
            }
            for folder in Self.parents(of: key) + (entry.isDirectory ? [key] : []) {
                let exact = ExactString(folder)
                if fileKeys.contains(exact) { throw Self.clash(entry.name, archive) }
                if folderKeys.insert(exact).inserted { folders.append((folder, entry.name)) }
            }
            guard !entry.isDirectory else { continue }
            let exact = ExactString(key)
            if folderKeys.contains(exact) { throw Self.clash(entry.name, archive) }
            guard fileKeys.insert(exact).inserted else {
                throw StorageError(
                    .invalidArgument, "the archive holds two entries with the same name; importing both would lose one",
                    tier: .files, key: entry.name, path: archive,
                    recovery: "Remove or rename one of the two entries (an import of this archive stores nothing)")
            }
            guard entry.size <= limits.maximumTotalSize - total else {
                throw StorageError(
                    .limitExceeded, "the archive expands to more than \(limits.maximumTotalSize) bytes", tier: .files,
                    key: entry.name, path: archive,
                    recovery: "Raise ImportLimits.maximumTotalSize if the archive is trusted")
            }
            total += entry.size
            files.append((entry, key))
        }
    }

    /// The folders above a key, outermost first: `a`, `a/b` for `a/b/c` (split on Unicode scalars, as keys are).
    package static func parents(of key: String) -> [String] {
        var parents: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            if scalar == "/" { parents.append(String(current)) }
            current.append(scalar)
        }
        return parents
    }

    /// A key's folder key (`""` for the tier folder) and last component: `a/b` and `c` for `a/b/c`.
    package static func split(_ key: String) -> (folder: String, name: String) {
        let folder = parents(of: key).last ?? ""
        let skipped = folder.isEmpty ? 0 : folder.unicodeScalars.count + 1
        return (folder, String(String.UnicodeScalarView(key.unicodeScalars.dropFirst(skipped))))
    }

    private static func clash(_ name: String, _ archive: String) -> StorageError {
        StorageError(
            .invalidArgument, "an archive entry is a file where another entry needs a folder of the same name",
            tier: .files, key: name, path: archive,
            recovery: "Rename the file or the folder in the archive (an import of it stores nothing)")
    }
}
