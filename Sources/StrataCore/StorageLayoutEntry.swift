/// One place where a backend keeps its data, as the backend itself reports it (``StorageBackend/layout``):
/// a file or folder under the store root, a database server, or the process's memory.
///
/// ```swift
/// for entry in try storage.backend(for: .records).layout {
///     print(entry)   // file /var/lib/app/records/main.sqlite: the database (SQLite, WAL mode)
/// }
/// ```
public struct StorageLayoutEntry: Sendable, Hashable, CustomStringConvertible {
    /// What kind of place this is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A regular file; ``StorageLayoutEntry/location`` is its absolute path.
        case file
        /// A folder; ``StorageLayoutEntry/location`` is its absolute path.
        case folder
        /// A server; ``StorageLayoutEntry/location`` is its address, never with a password.
        case server
        /// The memory of the process; nothing is stored elsewhere.
        case memory
    }

    /// What kind of place this is.
    public var kind: Kind
    /// The absolute path, the server address (without a password), or `memory`.
    public var location: String
    /// What the backend keeps there, in a few words ("suite file (binary plist)", "lock file").
    public var role: String

    /// Creates an entry.
    public init(_ kind: Kind, _ location: String, role: String) {
        self.kind = kind
        self.location = location
        self.role = role
    }

    public var description: String { "\(kind.rawValue) \(location.escapedForDisplay): \(role.escapedForDisplay)" }
}
