public import Foundation

/// Every regular file under `root`, at any depth, read whole: for tests that scan a store's bytes (a plaintext
/// that must not be on disk).
public func filesUnder(_ root: String) -> [(path: String, data: Data)] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var files: [(String, Data)] = []
    while let relative = enumerator?.nextObject() as? String {
        let path = root + "/" + relative
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            let data = FileManager.default.contents(atPath: path)
        {
            files.append((path, data))
        }
    }
    return files
}
