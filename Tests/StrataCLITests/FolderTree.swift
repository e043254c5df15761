import Foundation

/// Every entry under a folder, at any depth, with each regular file's bytes (`nil` for a folder or a link): two
/// snapshots compare equal when nothing was created, removed or changed.
struct FolderTree: Equatable, CustomStringConvertible {
    var entries: [String: Data?] = [:]

    init(_ root: String) {
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            entries[relative] = isFolder.boolValue ? nil : FileManager.default.contents(atPath: path)
        }
    }

    var description: String { entries.keys.sorted().joined(separator: ", ") }
}
