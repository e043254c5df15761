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
        var current = try Sys.open(folder, O_RDONLY | O_DIRECTORY)
        for _ in 0..<depth {
            let next: Int32
            do {
                next = try step(into: current, name)
            } catch {
                Sys.close(current)
                throw error
            }
            Sys.close(current)
            current = next
        }
        let fd: Int32
        do {
            fd = try Sys.openat(current, leaf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600, path: leaf)
        } catch {
            Sys.close(current)
            throw error
        }
        Sys.close(current)
        defer { Sys.close(fd) }
        try Sys.writeAll(fd, contents, path: leaf)
        return String(repeating: name + "/", count: depth) + leaf
    }

    /// Opens the folder `name` inside `folder`, making it first when it is not there.
    private static func step(into folder: Int32, _ name: String) throws(Errno) -> Int32 {
        do {
            try Sys.mkdirat(folder, name, 0o700, path: name)
        } catch  where error.code == EEXIST {
            // Made already (another chain of the same name in the same folder): go down it.
        }
        return try Sys.openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: name)
    }

    /// Removes the entry `name` of `folder` and everything under it, at any depth.
    public static func remove(_ name: String, in folder: String) {
        (try? DirectoryHandle.open(path: folder))?.removeTree(name)
    }
}
