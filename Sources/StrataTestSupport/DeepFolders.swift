public import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A chain of folders nested far deeper than `PATH_MAX` lets a path name, for tests of the walks that once
/// recursed once per level (and overflowed the stack on such a tree).
public enum DeepFolders {
    /// Makes `depth` folders named `name`, each inside the one before, in `folder` (through descriptors, one level
    /// at a time), and a file `leaf` holding `contents` in the deepest one.
    /// - Returns: The relative path of the file: `name/name/…/leaf`.
    @discardableResult
    public static func make(
        in folder: String, depth: Int, name: String = "d", leaf: String = "leaf", contents: Data = Data("deep".utf8)
    ) throws -> String {
        var current = try Sys.open(folder, .readOnly, .directory)
        for _ in 0..<depth {
            let parent = current
            current = try parent.closeAfter { try step(into: parent, name) }
        }
        let parent = current
        let fd = try parent.closeAfter {
            try Sys.openat(parent, leaf, .writeOnly, [.create, .truncate, .noFollow], path: leaf)
        }
        try fd.closeAfter { try Sys.writeAll(fd, contents, path: leaf) }
        return String(repeating: name + "/", count: depth) + leaf
    }

    /// Opens the folder `name` inside `folder`, making it first when it is not there.
    private static func step(into folder: FileDescriptor, _ name: String) throws(Errno) -> FileDescriptor {
        do {
            try Sys.mkdirat(folder, name, 0o700, path: name)
        } catch  where error.code == EEXIST {
            // Made already (another chain of the same name in the same folder): go down it.
        }
        return try Sys.openat(folder, name, .readOnly, [.directory, .noFollow], path: name)
    }

    /// Removes the entry `name` of `folder` and everything under it, at any depth.
    public static func remove(_ name: String, in folder: String) {
        (try? DirectoryHandle.open(path: folder))?.removeTree(name)
    }
}
