import Foundation

/// The error every Strata core operation throws: what failed, on which tier, key and path, and what to do.
///
/// The set of codes is open (it carries `errno` values and codes from the tiers), so `StorageError` is a
/// struct with a ``Code`` and context rather than an enum. Match it in `catch` by code:
///
/// ```swift
/// do {
///     try lock.acquire(.exclusive, timeout: .nonBlocking)
/// } catch let error as StorageError where error.code == .lockUnavailable {
///     print("busy: \(error.path ?? "?")")
/// }
/// ```
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members (`.invalidKey`, `.io`, ...).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A key or relative path was refused by the safe path mapping.
        public static let invalidKey = Code(rawValue: "invalid-key")
        /// A lock is held by someone else and the caller asked not to wait.
        public static let lockUnavailable = Code(rawValue: "lock-unavailable")
        /// A lock could not be taken within the caller's timeout.
        public static let lockTimeout = Code(rawValue: "lock-timeout")
        /// A system call failed; ``StorageError/errno`` holds the code.
        public static let io = Code(rawValue: "io")
        /// The disk (or quota) is full.
        public static let noSpace = Code(rawValue: "no-space")
        /// The operating system refused access.
        public static let permissionDenied = Code(rawValue: "permission-denied")
        /// A file exists but its content is not what the format requires.
        public static let corrupt = Code(rawValue: "corrupt")
        /// A file was written by a newer format version than this code knows.
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")
        /// No backend is registered for the tier (or under the name) that was asked for.
        public static let noBackend = Code(rawValue: "no-backend")
        /// A backend's factory failed while opening it.
        public static let backendUnavailable = Code(rawValue: "backend-unavailable")
        /// A tier's typed API was asked for while its active backend is not Strata's own (an in-memory or custom one).
        public static let notBuiltIn = Code(rawValue: "not-built-in")
        /// A value is larger than the tier accepts.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The value belongs in another tier (for example a credential offered to defaults).
        public static let wrongTier = Code(rawValue: "wrong-tier")
        /// A symbolic link was found where the store never follows one.
        public static let symbolicLink = Code(rawValue: "symbolic-link")
        /// The item asked for does not exist (only for operations where absence is an error).
        public static let notFound = Code(rawValue: "not-found")
        /// The caller passed an argument that cannot be used.
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// A key name looks like a credential (token, password, secret, ...) and the tier refuses it.
        public static let sensitiveKey = Code(rawValue: "sensitive-key")
        /// A stored value has another type than the one asked for.
        public static let typeMismatch = Code(rawValue: "type-mismatch")
        /// The store was closed; open a new one.
        public static let closed = Code(rawValue: "closed")
        /// The item needs the store unlocked, and it is locked.
        public static let locked = Code(rawValue: "locked")
        /// A key did not open what it should: a wrong passphrase or key, or a tampered keyring.
        public static let authenticationFailed = Code(rawValue: "authentication-failed")
        /// The caller cancelled the operation; nothing was changed.
        public static let cancelled = Code(rawValue: "cancelled")
        /// An archive entry or a decompressed size broke a safety limit (a decompression bomb, too many entries).
        public static let limitExceeded = Code(rawValue: "limit-exceeded")
        /// A uniqueness constraint or a relation's delete rule refused the change.
        public static let constraintViolation = Code(rawValue: "constraint-violation")
        /// The item is bound to another machine (a `...ThisDeviceOnly` item copied elsewhere).
        public static let deviceMismatch = Code(rawValue: "device-mismatch")
        /// A database server could not be reached, or the connection to it was lost.
        public static let connectionFailed = Code(rawValue: "connection-failed")
        /// Concurrent transactions conflicted and the retries ran out; running the operation again may succeed.
        public static let conflict = Code(rawValue: "conflict")
        /// A lock shared by several machines was lost while the operation held it: the database server ended the
        /// session that held it (a restart, a network cut, an administrator), so another machine may hold it now.
        /// The operation stopped at the next step that needed it; what it left half done is the next holder's to
        /// settle. Running the operation again may succeed.
        public static let lockLost = Code(rawValue: "lock-lost")
        /// A call did not finish within its deadline (a hung server or network); it was abandoned.
        public static let timeout = Code(rawValue: "timeout")
        /// The file or schema exists but is not a store of this kind: not a SQLite database at all, another
        /// program's database, or a PostgreSQL schema Strata did not make. Nothing in it was changed. Distinct from
        /// ``corrupt`` (a store of ours, damaged) and ``unsupportedVersion`` (a store of ours from a newer Strata).
        public static let notAStore = Code(rawValue: "not-a-store")
        /// A store or backup repository folder belongs to another user, or others may write in it (see
        /// `StoragePaths.Sharing`); or a file holding a key or a passphrase is another user's, or others may read it.
        public static let unsafePermissions = Code(rawValue: "unsafe-permissions")
        /// A stored file is older than the store's authenticated record of it says: an earlier copy was put back
        /// (a rollback), so its content may be a revoked value. Nothing was returned from it.
        public static let rolledBack = Code(rawValue: "rolled-back")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed, as a sentence fragment (for example "cannot open the lock file").
    public var message: String
    /// The tier the operation was working on, if any.
    public var tier: Tier?
    /// The key or relative path the caller gave, if any.
    public var key: String?
    /// The absolute file system path involved, if any.
    public var path: String?
    /// The line of ``path`` at fault (1-based), for a text file such as the store configuration.
    public var line: Int?
    /// The underlying `errno`, for failures of system calls.
    public var errno: Int32?
    /// What the caller can do about it, if there is something useful to say.
    public var recovery: String?
    /// The tier the value should go to instead, when the error is that it belongs elsewhere.
    public var suggestedTier: Tier?
    /// The named group the operation worked on: a records collection, a defaults suite, a keyring.
    public var collection: String?
    /// What was being done, in a word or two (`insert`, `query`, `migrate to 3`).
    public var operation: String?
    /// The attribute of an item that broke a rule, when the error is about one (a secret's `label`, `service`,
    /// `account` or `value` over its size limit).
    public var attribute: String?
    /// What to do about it, as an action a tool words its own way (``recovery`` has the API's words).
    public var remedy: Remedy?
    /// What the engine underneath adds (an S3 service code and request id, a PostgreSQL SQLSTATE, a SQLite result
    /// code, the attempts of a retried call), or `nil`. Each engine module has a typed accessor for its own kind.
    public var detail: (any StorageErrorDetail)? {
        get { detailBox?.detail }
        set { detailBox = newValue.map(DetailBox.init) }
    }
    /// Holds ``detail`` so that the error stays `Hashable`.
    private var detailBox: DetailBox?

    /// Creates an error. Prefer the codes' static members for `code`.
    public init(
        _ code: Code,
        _ message: String,
        tier: Tier? = nil,
        key: String? = nil,
        path: String? = nil,
        errno: Int32? = nil,
        recovery: String? = nil,
        suggestedTier: Tier? = nil
    ) {
        self.code = code
        self.message = message
        self.tier = tier
        self.key = key
        self.path = path
        self.errno = errno
        self.recovery = recovery
        self.suggestedTier = suggestedTier
    }

    /// One line: what failed, where, the system's reason, and what to do.
    ///
    /// Every part that may carry outside text (the message, which can name an archive entry or a key, the
    /// quoted fields, the recovery) is escaped with `escapedForDisplay`, so printing an error can
    /// never send control sequences to a terminal or reorder the line with bidirectional overrides.
    public var description: String {
        var text = "\(code): \(message.escapedForDisplay)"
        var places: [String] = []
        if let tier { places.append("tier \(tier.rawValue)") }
        if let collection { places.append("collection \(Self.quoted(collection))") }
        if let key { places.append("key \(Self.quoted(key))") }
        if let attribute { places.append("attribute \(attribute.escapedForDisplay)") }
        if let path { places.append("path \(Self.quoted(path))") }
        if let line { places.append("line \(line)") }
        if let operation { places.append("during \(operation.escapedForDisplay)") }
        if let detail = detail?.description, !detail.isEmpty { places.append(detail) }
        if !places.isEmpty { text += " (" + places.joined(separator: ", ") + ")" }
        if let errno { text += ": \(String(cString: strerror(errno))) (errno \(errno))" }
        if let recovery { text += ". " + recovery.escapedForDisplay }
        return text
    }

    /// Quotes a user-supplied string so that control characters, NUL and direction overrides print visibly.
    package static func quoted(_ string: String) -> String {
        "\"" + string.shortenedForDisplay().replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension StorageError {
    /// Builds the error for a failed system call, choosing the code from `errno`.
    package static func system(
        _ errno: Int32,
        _ message: String,
        tier: Tier? = nil,
        key: String? = nil,
        path: String? = nil
    ) -> StorageError {
        switch errno {
        case ENOSPC, EDQUOT:
            return StorageError(
                .noSpace, message, tier: tier, key: key, path: path, errno: errno,
                recovery: "Free disk space; what was stored before is unchanged")
        case EACCES, EPERM, EROFS:
            return StorageError(
                .permissionDenied, message, tier: tier, key: key, path: path, errno: errno,
                recovery: "Check the owner and mode of the store's folders")
        case ELOOP:
            return StorageError(
                .symbolicLink, message, tier: tier, key: key, path: path, errno: errno,
                recovery: "The store never follows symbolic links; replace the link with a real file or folder")
        case ENXIO:
            // What `DirectoryHandle.openRegularFile` refuses (the system's own text, "no such device or address",
            // would mislead).
            return StorageError(
                .invalidArgument, message + ": it is not a regular file (a FIFO, socket, device or folder)",
                tier: tier, key: key, path: path,
                recovery: "A store's files are regular files: remove what is there, or put the file back from a backup")
        default:
            return StorageError(.io, message, tier: tier, key: key, path: path, errno: errno)
        }
    }

    /// Returns a copy with the tier and key filled in where they were missing.
    package func attributed(tier: Tier?, key: String?) -> StorageError {
        var copy = self
        if copy.tier == nil { copy.tier = tier }
        if copy.key == nil { copy.key = key }
        return copy
    }
}
