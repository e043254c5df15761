/// A path of the local file system as the caller wrote it, taken apart lexically: its folder, its last name, joins,
/// `.` and `..`, repeated and trailing slashes. The one path type of Strata and its tool (Foundation's `NSString` path
/// methods trap on some one-character names). Nothing here touches the disk or follows a link.
///
/// ```swift
/// LocalPath("k").parent.string          // "."
/// LocalPath("d/k/").lastComponent       // "k"
/// LocalPath("/abs/k").parent.string     // "/abs"
/// LocalPath("a/./b/../c").normalized     // "a/c"
/// ```
public struct LocalPath: Sendable, Hashable, CustomStringConvertible {
    /// The path as given.
    public let string: String

    /// Wraps a path.
    public init(_ string: String) { self.string = string }

    public var description: String { string }

    /// Whether the path starts at the root (`/`).
    public var isAbsolute: Bool { string.utf8.first == UInt8(ascii: "/") }

    /// The names between slashes, empty ones (repeated and trailing slashes) left out; `.` and `..` kept.
    public var components: [String] {
        string.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
    }

    /// The last name, or `nil` when the path names no file of its own: empty, `/`, or ending in `.` or `..`.
    public var lastComponent: String? {
        guard let last = components.last, last != ".", last != ".." else { return nil }
        return last
    }

    /// The folder that holds the path's last name: `.` for a bare name, `/` for a name at the root; for a path
    /// ending in `.` or `..`, that path's own parent (`..` of it).
    public var parent: LocalPath {
        let names = components
        guard let last = names.last else { return LocalPath(isAbsolute ? "/" : "..") }
        if last == "." || last == ".." { return appending("..") }
        let folder = names.dropLast().joined(separator: "/")
        if isAbsolute { return LocalPath("/" + folder) }
        return LocalPath(folder.isEmpty ? "." : folder)
    }

    /// The path with `name` (one name, or a relative path) after it, joined by one slash.
    public func appending(_ name: String) -> LocalPath {
        if string.isEmpty { return LocalPath(name) }
        return LocalPath(string.utf8.last == UInt8(ascii: "/") ? string + name : string + "/" + name)
    }

    /// The path without `.` components and repeated or trailing slashes, with each `..` taking away the name before
    /// it where there is one (lexically: a link in the path is not looked at); `.` for an empty relative path.
    public var normalized: String {
        var kept: [String] = []
        for name in components where name != "." {
            if name == "..", let last = kept.last, last != ".." {
                kept.removeLast()
            } else if name == "..", isAbsolute {
                continue  // `..` of the root is the root.
            } else {
                kept.append(name)
            }
        }
        let joined = kept.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
