import Foundation
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The layout of a store on disk, and the one place that maps a caller's key to a file system path.
///
/// ```
/// <root>/                 0700; by default $XDG_DATA_HOME/<app-id>
///   defaults/ secrets/ records/ files/
/// ```
///
/// Keys are relative paths (`exports/2026/report.pdf`). ``path(for:in:createParents:)`` refuses anything that
/// could leave the tier's folder: `..`, absolute paths, NUL and control characters, backslashes, empty or
/// over-long components, names reserved for Strata's own files, and symbolic links anywhere below the root. It
/// also refuses what could disguise a key when it is shown: the C1 controls (U+0080–U+009F), bidirectional
/// formatting characters (U+202E and its kin) and the line and paragraph separators.
///
/// Keys are kept exactly as given: Strata never normalizes Unicode, so `"caf\u{E9}"` (NFC) and `"cafe\u{301}"`
/// (NFD) are two keys in every tier, as they are two names on a Linux file system. Use ``ExactString`` to hold
/// keys in a dictionary or set; `String`'s own equality would merge the two.
///
/// ```swift
/// let paths = try StoragePaths(appID: "com.example.notes")
/// let file = try paths.path(for: "exports/report.pdf", in: .files, createParents: true)
/// ```
public struct StoragePaths: Sendable, Hashable {
    /// The longest key accepted, in UTF-8 bytes. The default layout keeps every path under `PATH_MAX`.
    public static let maximumKeyLength = 1024
    /// The longest path component accepted, in UTF-8 bytes (`NAME_MAX` on Linux and macOS).
    public static let maximumComponentLength = 255
    /// Names starting with this prefix are Strata's own (temporary files, locks) and refused as keys.
    public static let reservedPrefix = ".strata-"
    /// The folder under the root that holds the store's catalog (where every key lives).
    package static let catalogFolderName = "catalog"

    /// The absolute path of the store's root folder.
    public let root: String

    /// Who besides the owner may write in the store's folders.
    public enum Sharing: Sendable, Hashable {
        /// Only the owner: the root and the tier folders must belong to this process's user and must not be
        /// writable by their group or by others; new folders are 0700 and new files 0600.
        case `private`
        /// The members of the root's group too: the root and the tier folders may be group-writable (never
        /// world-writable) and may belong to another member; new folders are 0770 and new files of the
        /// files and defaults tiers 0640 (secrets stay 0700/0600). Every member of the group is trusted with
        /// the content, but none can redirect another's writes: every step is resolved by descriptor.
        case group
    }

    /// Who besides the owner may write in the store's folders. The default is ``Sharing/private``.
    public let sharing: Sharing

    /// Opens (and by default creates, mode 0700) a store root.
    /// - Parameters:
    ///   - root: The root folder; a relative path is taken from the current directory.
    ///   - create: Whether to create the folder (and missing parents) when it does not exist. The default is `true`.
    ///   - sharing: Whether the root's group may share it. The default is ``Sharing/private``.
    /// - Throws: ``StorageError`` when the root exists but is not a folder, or cannot be created;
    ///   `.unsafePermissions` when it belongs to another user or is writable by others (see ``Sharing``).
    public init(root: String, create: Bool = true, sharing: Sharing = .private) throws {
        guard !root.isEmpty, !root.contains("\0") else {
            throw StorageError(.invalidArgument, "the store root path is empty or contains NUL", path: root)
        }
        let absolute =
            root.utf8.first == UInt8(ascii: "/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        self.root = Self.normalized(absolute)
        self.sharing = sharing
        try Self.ensureDirectory(self.root, create: create, createParents: true)
        _ = try openRoot()
    }

    /// Opens the default root for an app: `$XDG_DATA_HOME/<appID>`, else `~/.local/share/<appID>`.
    /// - Parameters:
    ///   - appID: The app's identifier, one path component (for example `com.example.notes`).
    ///   - environment: Where to read `XDG_DATA_HOME` and `HOME`. The default (`nil`) is the process environment.
    public init(appID: String, environment: [String: String]? = nil) throws {
        try self.init(
            root: Self.defaultRoot(appID: appID, environment: environment ?? ProcessInfo.processInfo.environment))
    }

    /// The default root path for an app, without creating it.
    /// - Throws: ``StorageError`` `.invalidKey` when `appID` is not a single safe path component.
    public static func defaultRoot(appID: String, environment: [String: String]) throws -> String {
        do {
            try validateKey(appID)
        } catch {
            throw StorageError(.invalidArgument, "the app id is not a safe folder name: \(error.message)", key: appID)
        }
        guard !appID.contains("/") else {
            throw StorageError(.invalidArgument, "the app id must be one folder name, without '/'", key: appID)
        }
        if let xdg = environment["XDG_DATA_HOME"], xdg.utf8.first == UInt8(ascii: "/") {
            return normalized(xdg) + "/" + appID
        }
        let home = environment["HOME"].flatMap { $0.utf8.first == UInt8(ascii: "/") ? $0 : nil } ?? NSHomeDirectory()
        return normalized(home) + "/.local/share/" + appID
    }

    /// The mode of the folders the store creates below a tier folder: 0700, or 0770 when shared by the group.
    package var directoryPermissions: FilePermissions { sharing == .group ? 0o770 : 0o700 }
    /// The mode of the files the files and defaults tiers create: 0600, or 0640 when shared by the group.
    package var filePermissions: Int { sharing == .group ? 0o640 : 0o600 }

    /// Where a tier's folder is (`<root>/<tier>`), whether or not it exists; for display, never for I/O.
    public func directoryPath(for tier: Tier) -> String { root + "/" + tier.directoryName }

    /// The folder of a tier (`<root>/<tier>`), created with mode 0700 when `create` is `true`.
    /// - Returns: Its path, for messages and display: operations go through `openDirectory(for:create:)`.
    /// - Throws: ``StorageError`` when it is a symbolic link or not a folder, cannot be created, or fails the
    ///   ownership checks (`.unsafePermissions`).
    public func directory(for tier: Tier, create: Bool = true) throws -> String {
        let path = root + "/" + tier.directoryName
        if try openDirectory(for: tier, create: create) == nil {
            throw StorageError(.notFound, "the tier folder does not exist", tier: tier, path: path, errno: ENOENT)
        }
        return path
    }

    /// Opens the root folder (following links in its own path, which the caller chose) and checks its owner
    /// and mode.
    /// - Throws: ``StorageError``: `.unsafePermissions`, or an I/O error.
    package func openRoot() throws(StorageError) -> DirectoryHandle {
        let handle: DirectoryHandle
        do throws(Errno) {
            handle = try DirectoryHandle.open(path: root)
        } catch {
            throw error.storageError("cannot open the store root", path: root)
        }
        try checkOwnership(handle, tier: nil)
        return handle
    }

    /// Opens a tier's folder from the root, never through a link, checking its owner and mode.
    /// - Parameters:
    ///   - tier: The tier.
    ///   - create: Whether to create it (and never the root: ``init(root:create:sharing:)`` does that).
    /// - Returns: The folder, or `nil` when it does not exist and `create` is `false`.
    /// - Throws: ``StorageError``: `.symbolicLink`, `.unsafePermissions`, or an I/O error.
    package func openDirectory(for tier: Tier, create: Bool = true) throws(StorageError) -> DirectoryHandle? {
        let rootHandle = try openRoot()
        do throws(StorageError) {
            guard
                let handle = try rootHandle.openDirectory(
                    tier.directoryName, create: create, permissions: directoryPermissions)
            else { return nil }
            try checkOwnership(handle, tier: tier)
            return handle
        } catch {
            throw error.attributed(tier: tier, key: nil)
        }
    }

    /// Opens the folder that holds `key` in a tier, from the root down, never through a link.
    /// - Parameters:
    ///   - key: A key (checked with ``validateKey(_:)``).
    ///   - tier: The tier whose folder holds it.
    ///   - createParents: Whether to create the missing folders on the way (with ``Sharing``'s mode).
    /// - Returns: The folder and the key's last component, or `nil` when a folder on the way is missing and
    ///   `createParents` is `false`.
    /// - Throws: ``StorageError``: `.invalidKey` (also when a component is a file), `.symbolicLink`,
    ///   `.unsafePermissions`, or an I/O error; each names the tier and key.
    package func openParent(of key: String, in tier: Tier, createParents: Bool = false) throws(StorageError)
        -> (folder: DirectoryHandle, name: String)?
    {
        let components = try Self.validatedComponents(key, tier: tier)
        guard let folder = try openFolder(components.dropLast(), key: key, in: tier, create: createParents) else {
            return nil
        }
        return (folder, components[components.count - 1])
    }

    /// Opens the folder `key` itself in a tier (for listing, or a folder a tier keeps per name).
    /// - Returns: The folder, or `nil` when it (or a folder on the way) is missing and `create` is `false`.
    /// - Throws: What `openParent(of:in:createParents:)` throws.
    package func openFolder(_ key: String, in tier: Tier, create: Bool = false) throws(StorageError)
        -> DirectoryHandle?
    {
        try openFolder(Self.validatedComponents(key, tier: tier)[...], key: key, in: tier, create: create)
    }

    private func openFolder(_ components: ArraySlice<String>, key: String, in tier: Tier, create: Bool)
        throws(StorageError) -> DirectoryHandle?
    {
        do throws(StorageError) {
            guard var folder = try openDirectory(for: tier, create: create) else { return nil }
            for component in components {
                guard let next = try folder.openDirectory(component, create: create, permissions: directoryPermissions)
                else { return nil }
                folder = next
            }
            return folder
        } catch {
            var error = error.attributed(tier: tier, key: key)
            if error.code == .invalidArgument, error.tier == tier, error.path != root + "/" + tier.directoryName {
                error.code = .invalidKey
                error.message = "a component of the key is a file, not a folder"
            }
            throw error
        }
    }

    private static func validatedComponents(_ key: String, tier: Tier) throws(StorageError) -> [String] {
        try validateKey(key, for: tier)
        return components(of: key)
    }

    /// Refuses a root or tier folder that another user owns or others may write (see ``Sharing``).
    private func checkOwnership(_ handle: DirectoryHandle, tier: Tier?) throws(StorageError) {
        try handle.checkOwnership(
            sharing: sharing, noun: "store", tier: tier, groupOption: "open it with sharing: .group")
    }

    /// Maps a key to its path inside a tier's folder, refusing every key that could lead elsewhere.
    ///
    /// The path is for display: file operations open the key's folder by descriptor
    /// (`openParent(of:in:createParents:)`), so a neighbour who swaps a folder for a link after this returns
    /// redirects nothing.
    /// - Parameters:
    ///   - key: A relative path such as `exports/report.pdf`.
    ///   - tier: The tier whose folder holds it.
    ///   - createParents: Whether to create the missing folders between the tier folder and the file (0700).
    /// - Returns: The absolute path. The file itself may or may not exist; if it exists it is not a link.
    /// - Throws: ``StorageError`` `.invalidKey` for a refused key, `.symbolicLink` when a link is found on the way.
    public func path(for key: String, in tier: Tier, createParents: Bool = false) throws -> String {
        let path = root + "/" + tier.directoryName + "/" + key
        guard let (folder, name) = try openParent(of: key, in: tier, createParents: createParents) else {
            return path
        }
        let info: stat?
        do throws(Errno) { info = try folder.status(of: name) } catch {
            throw error.storageError("cannot inspect a component of the key", tier: tier, key: key, path: path)
        }
        if let info, (info.st_mode & S_IFMT) == S_IFLNK {
            throw StorageError(
                .symbolicLink, "the key leads through a symbolic link, which the store never follows",
                tier: tier, key: key, path: path,
                recovery: "Replace the link with a real file or folder inside the store")
        }
        return path
    }

    /// Checks a key for a backend of `tier`: the error, if any, names the tier and the key.
    package static func validateKey(_ key: String, for tier: Tier) throws(StorageError) {
        do {
            try validateKey(key)
        } catch {
            throw error.attributed(tier: tier, key: key)
        }
    }

    /// Checks a key against the mapping's rules without touching the disk.
    ///
    /// One pass over the key's UTF-8 bytes, allocating nothing for a key it accepts: a `/` is the byte 0x2F and
    /// never part of another scalar's encoding, so components are found by bytes; only a non-ASCII scalar is
    /// decoded, to check it against the refused ones. Rules on characters are checked before rules on components:
    /// when a key breaks several, the first refused character is reported, else the first refused component.
    /// - Throws: ``StorageError`` `.invalidKey` with a message that says which rule the key breaks.
    public static func validateKey(_ key: String) throws(StorageError) {
        var bytes = key
        let refusal = bytes.withUTF8 { KeyRefusal.first(in: $0) }
        guard let refusal else { return }
        throw StorageError(
            .invalidKey, refusal.message, key: key,
            recovery:
                "Use a relative path of non-empty components, without '..', '\\', control characters or "
                + "direction overrides")
    }

    /// Checks the name of a suite, keyring or record store (from an option or the store configuration): one plain file
    /// name under its tier's folder — no `/`, not `.` or `..`, no control or direction-override characters, nothing
    /// under the reserved prefix. Each tier narrows its names further when it opens one.
    /// - Parameters:
    ///   - name: The name to check.
    ///   - what: What the name names (`suite`, `keyring`, `record store`), for the message.
    /// - Throws: ``StorageError`` `.invalidArgument` naming it and the rule it breaks.
    public static func validateName(_ name: String, of what: String) throws(StorageError) {
        do throws(StorageError) {
            try validateKey(name)
            guard !name.utf8.contains(UInt8(ascii: "/")), name != "." else {
                throw StorageError(.invalidKey, "it names a path, not one file name", key: name)
            }
        } catch {
            throw StorageError(
                .invalidArgument, "the \(what) name is not a plain name: \(error.message)", key: name,
                recovery: "Name the \(what) with one word of letters, digits, '.', '_' or '-'")
        }
    }

    /// The `/`-separated components of a path, split on the byte `/` (never on `Character`s: a `/` followed by a
    /// combining mark is one `Character` in Swift, and splitting on characters would miss it and let
    /// `../\u{301}x` through). A `/` byte always begins and ends a scalar, so each piece is valid UTF-8.
    static func components(of path: String, omittingEmpty: Bool = true) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: omittingEmpty).map {
            String(Substring($0))
        }
    }

    /// Removes `.` and duplicate slashes and resolves `..` lexically (for the root only; keys never contain them).
    static func normalized(_ path: String) -> String {
        LocalPath(path.utf8.first == UInt8(ascii: "/") ? path : "/" + path).normalized
    }

    /// Makes sure `path` is a real folder (not a link), creating it with mode 0700 if asked.
    static func ensureDirectory(_ path: String, create: Bool, createParents: Bool, tier: Tier? = nil) throws {
        do {
            try requireDirectory(path, key: nil, tier: tier, allowLink: tier == nil)
            return
        } catch let error as StorageError where error.errno == ENOENT && create {
            // Fall through and create it.
        }
        if createParents {
            let parent = LocalPath(path).parent.string
            if parent != path, parent != "/" {
                try ensureDirectory(parent, create: true, createParents: true, tier: nil)
            }
        }
        do {
            try Sys.mkdir(path, 0o700)
        } catch let error where error.code == EEXIST {
            try requireDirectory(path, key: nil, tier: tier, allowLink: tier == nil)
        } catch {
            throw error.storageError("cannot create the store folder", tier: tier, path: path)
        }
    }

    /// Throws unless `path` is a folder. `allowLink` permits a link to a folder (for the root and its parents).
    static func requireDirectory(_ path: String, key: String?, tier: Tier?, allowLink: Bool = false) throws {
        let info: stat
        do {
            info = try Sys.lstat(path)
        } catch {
            throw error.storageError("cannot inspect the store folder", tier: tier, key: key, path: path)
        }
        var kind = info.st_mode & S_IFMT
        if kind == S_IFLNK {
            guard allowLink else {
                throw StorageError(
                    .symbolicLink, "a store folder is a symbolic link, which the store never follows",
                    tier: tier, key: key, path: path)
            }
            do throws(Errno) {
                kind = try Sys.statFollowingLinks(path).st_mode & S_IFMT
            } catch {
                throw error.storageError("the store folder is a dangling link", tier: tier, path: path)
            }
        }
        guard kind == S_IFDIR else {
            throw StorageError(.invalidArgument, "a store folder is not a folder", tier: tier, key: key, path: path)
        }
    }
}
