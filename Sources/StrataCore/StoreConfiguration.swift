/// A store's configuration: each tier's active backend and its settings, the selector's thresholds and the
/// defaults tier's limits, held in one place and kept in the file `<root>/strata.conf`.
///
/// `Storage(root:)` and every `strata` verb read the file, so a program and the tool open a store the same way
/// (its records on PostgreSQL, its limits, its allowed key names). `strata init ROOT` writes one.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.records.backend = "postgres"
/// configuration.records.urlVariable = "STRATA_RECORDS_URL"   // the URL stays out of the file
/// configuration.defaults.allowedSensitiveKeys = ["showPasswordHint"]
/// try configuration.write(to: try StoragePaths(root: "/var/lib/myapp"))
/// ```
///
/// The file format is described in `Documentation/Storage.md`; a file of a newer ``currentVersion`` is refused
/// with `.unsupportedVersion`, a malformed one with `.corrupt`, both naming the file and the line.
public struct StoreConfiguration: Sendable, Hashable {
    /// The defaults tier: its backend, suite and allowed key names. Its limits are
    /// ``SelectorConfiguration/defaults``, shared with the selector.
    public struct Defaults: Sendable, Hashable {
        /// The active backend's name. The default is `plist`.
        public var backend = "plist"
        /// The suite the facade stores preferences in. The default is `standard`.
        public var suite = "standard"
        /// Key names allowed in defaults although they look like credentials (`showPasswordHint`), matched by
        /// their exact Unicode scalars. The default is none.
        public var allowedSensitiveKeys: [String] = []
        /// Creates the default section.
        public init() {}
    }

    /// The secrets tier: its backend and keyring.
    public struct Secrets: Sendable, Hashable {
        /// The active backend's name. The default is `sodium`.
        public var backend = "sodium"
        /// The keyring the facade stores credentials in. The default is `default`.
        public var keyring = "default"
        /// Creates the default section.
        public init() {}
    }

    /// The records tier: its backend and where it lives.
    public struct Records: Sendable, Hashable {
        /// The active backend's name: `sqlite` (a file under the root) or `postgres`. The default is `sqlite`.
        public var backend = "sqlite"
        /// The SQLite store's name (`<root>/records/<store>.sqlite`). The default is `main`.
        public var store = "main"
        /// The PostgreSQL connection string, when it is written in the file. Prefer ``urlVariable``: a password
        /// in the URL would be stored in the file. The default is `nil`.
        public var url: String?
        /// The environment variable that holds the connection string (`STRATA_RECORDS_URL`), so the file never
        /// holds a password. The default is `nil`.
        public var urlVariable: String?
        /// Creates the default section.
        public init() {}
    }

    /// The files tier: its backend and, on S3, where the bucket is. Credentials are never part of it: they come
    /// from the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) or from the store's
    /// secrets tier (``credentials``).
    public struct Files: Sendable, Hashable {
        /// The active backend's name: `filesystem` (a folder under the root) or `s3`. The default is `filesystem`.
        public var backend = "filesystem"
        /// The S3 location, `s3://bucket/prefix`, when it is written in the file. The default is `nil`.
        public var url: String?
        /// The environment variable that holds the S3 location (`STRATA_FILES_URL`). The default is `nil`.
        public var urlVariable: String?
        /// The S3 server, `http(s)://host[:port]`. The default (`nil`) is `AWS_ENDPOINT_URL_S3` or
        /// `AWS_ENDPOINT_URL`, else AWS in ``region``.
        public var endpoint: String?
        /// The S3 signing region. The default (`nil`) is `AWS_REGION` or `AWS_DEFAULT_REGION`, else `us-east-1`.
        public var region: String?
        /// Where the S3 credentials come from. The default is ``FilesCredentials/environment``.
        public var credentials = FilesCredentials.environment
        /// Creates the default section.
        public init() {}
    }

    /// The catalog: whether machines share the store. See ``isShared``.
    public struct Catalog: Sendable, Hashable {
        /// Whether the store is shared by several machines (`[catalog] shared = true`): its catalog is then kept on
        /// the records tier's PostgreSQL server, in the records' schema, and every tier it uses must be one that
        /// machines share (records on PostgreSQL, files on S3). The default is `false`: the catalog is a file
        /// under the root, and the store is one machine's, whatever servers its tiers use.
        public var isShared = false
        /// Creates the default section.
        public init() {}
    }

    /// The name of the file under the store root.
    public static let fileName = "strata.conf"

    /// The store of `tier` whose keys the store's catalog places: the suite, keyring or record store named here;
    /// `""` for the files tier, which has one.
    package func placedStore(of tier: Tier) -> String {
        switch tier {
        case .defaults: defaults.suite
        case .secrets: secrets.keyring
        case .records: records.store
        case .files: ""
        }
    }
    /// The newest format version this code reads and the one it writes.
    public static let currentVersion = 1

    /// The selector's thresholds, the defaults tier's limits among them. The default is
    /// ``SelectorConfiguration/init(defaults:smallStructuredLimit:secretSizeLimit:context:)``.
    public var selector = SelectorConfiguration()
    /// The defaults tier's section.
    public var defaults = Defaults()
    /// The secrets tier's section.
    public var secrets = Secrets()
    /// The records tier's section.
    public var records = Records()
    /// The files tier's section.
    public var files = Files()
    /// The catalog's section: whether the store is shared by several machines.
    public var catalog = Catalog()
    /// The file it was read from, or `nil` for a configuration built in code (or a store without a file).
    public internal(set) var path: String?
    /// The line each setting was read from (`records.backend` → 12), for errors found after reading.
    package var lines: [String: Int] = [:]

    /// Creates the built-in configuration: every tier on Strata's own backend, the default limits.
    public init() {}

    /// The active backend's name for a tier.
    public func backend(for tier: Tier) -> String {
        switch tier {
        case .defaults: defaults.backend
        case .secrets: secrets.backend
        case .records: records.backend
        case .files: files.backend
        }
    }

    /// The records connection string in force: ``Records/url``, else the value of ``Records/urlVariable`` in
    /// `environment`; `nil` when the records tier is not on a server.
    /// - Throws: ``StorageError`` `.invalidArgument` (naming the file and line) when the `postgres` backend has
    ///   neither, or its variable is unset.
    public func recordsURL(environment: [String: String]) throws -> String? {
        guard records.backend == "postgres" else { return nil }
        if let url = records.url { return try postgresURL(url, setting: "records.url") }
        if let variable = records.urlVariable, let value = environment[variable], !value.isEmpty {
            return try postgresURL(value, setting: "records.url-variable")
        }
        let message =
            records.urlVariable.map { "the records tier is on postgres, but the environment variable \($0) is unset" }
            ?? "the records tier is on postgres, but neither `url` nor `url-variable` says where"
        throw error(
            .invalidArgument, message, setting: records.urlVariable == nil ? "records.backend" : "records.url-variable",
            recovery: records.urlVariable.map { "Set \($0) to a postgresql:// connection string" }
                ?? "Add `url-variable = STRATA_RECORDS_URL` (or `url = postgresql://…`) to the [records] section")
    }

    /// The S3 location in force for the files tier: ``Files/url``, else the value of ``Files/urlVariable`` in
    /// `environment`; `nil` when the files tier is not on S3.
    /// - Throws: ``StorageError`` `.invalidArgument` (naming the file and line, with ``StorageError/attribute``
    ///   `url`) when the `s3` backend has neither, its variable is unset, or the location is not an `s3://` URL.
    public func filesURL(environment: [String: String]) throws -> String? {
        guard files.backend == "s3" else { return nil }
        if let url = files.url { return try s3URL(url, setting: "files.url") }
        if let variable = files.urlVariable, let value = environment[variable], !value.isEmpty {
            return try s3URL(value, setting: "files.url-variable")
        }
        let message =
            files.urlVariable.map { "the files tier is on s3, but the environment variable \($0) is unset" }
            ?? "the files tier is on s3, but neither `url` nor `url-variable` says where"
        var error = error(
            .invalidArgument, message, setting: files.urlVariable == nil ? "files.backend" : "files.url-variable",
            recovery: files.urlVariable.map { "Set \($0) to an s3://bucket/prefix URL" }
                ?? "Add `url = s3://bucket/prefix` (or `url-variable = STRATA_FILES_URL`) to the [files] section")
        error.tier = .files
        error.attribute = "url"
        throw error
    }

    /// Checks that a shared store (``Catalog/isShared``) keeps its records and files where every machine reaches
    /// them, with `recordsURL` and `filesURL` the locations in force (`nil`: under the root).
    /// - Throws: ``StorageError`` `.invalidArgument` naming the setting (and the file and line) of a tier that
    ///   would stay on one machine.
    package func checkShared(recordsURL: String?, filesURL: String?) throws {
        guard catalog.isShared else { return }
        if recordsURL == nil {
            var error = error(
                .invalidArgument,
                "the store is shared ([catalog] shared = true), but its records are in SQLite under this machine's "
                    + "root; the shared catalog lives on the records' PostgreSQL server", setting: "records.backend",
                recovery: "Set `backend = postgres` and `url-variable = STRATA_RECORDS_URL` in [records] (strata init "
                    + "ROOT --shared --records-url-variable NAME), or remove `shared = true` for a one-machine store")
            error.tier = .records
            throw error
        }
        if filesURL == nil {
            var error = error(
                .invalidArgument,
                "the store is shared ([catalog] shared = true), but its files are in a folder under this machine's "
                    + "root", setting: "files.backend",
                recovery: "Put the files on S3: `backend = s3` and `url = s3://bucket/prefix` in [files] (strata init "
                    + "ROOT --shared --files-url s3://bucket/prefix), or remove `shared = true` for a one-machine store"
            )
            error.tier = .files
            throw error
        }
    }

    /// The refusal of a value in `tier`, which has no engine that machines share, in a shared store.
    package func unsharedTierError(_ tier: Tier, key: String?) -> StorageError {
        var error = StorageError(
            .noBackend,
            "the store is shared, and the \(tier.rawValue) tier has no engine that machines share: a value kept "
                + "there would be this machine's alone", tier: tier, key: key, path: path,
            recovery: "Name the tier's engine on the records' server in strata.conf (`backend = postgres` in "
                + "[\(tier.rawValue)]), or store the value as a record or a file")
        error.line = lines["catalog.shared"]
        return error
    }

    /// The refusal of a write of `key` through the root's own store of `tier` (its suite or keyring under the root)
    /// in a shared store: that store is this machine's, and the catalog every machine reads must not place a key
    /// there.
    package func machineLocalStoreError(_ tier: Tier, key: String?) -> StorageError {
        let (kind, typed) = tier == .defaults ? ("preference", "sharedDefaults") : ("credential", "sharedSecrets")
        var error = StorageError(
            .noBackend,
            "the store is shared, and this machine's own \(tier.rawValue) store under its root is not part of it: a "
                + "value kept there would be this machine's alone", tier: tier, key: key, path: path,
            recovery: "Write it through the store (storage.put(_:for:as:) with kind .\(kind), or storage.\(typed); "
                + "strata put KEY FILE --kind \(kind)), which keeps it on the server every machine reads")
        error.line = lines["catalog.shared"]
        return error
    }

    /// `url` when it is an `s3://` URL (its bucket and prefix are checked where the engine is made).
    func s3URL(_ url: String, setting: String) throws -> String {
        guard url.lowercased().hasPrefix("s3://") else {
            var error = error(
                .invalidArgument, "the files location (\(setting)) is not an s3:// URL", setting: setting,
                recovery: "Write it as s3://bucket or s3://bucket/prefix")
            error.tier = .files
            error.attribute = "scheme"
            throw error
        }
        return url
    }

    /// `url` when it is a `postgresql://` (or `postgres://`) connection string.
    func postgresURL(_ url: String, setting: String) throws -> String {
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            throw error(
                .invalidArgument, "the records URL (\(setting)) is not a postgresql:// connection string",
                setting: setting, recovery: "Write it as postgresql://user@host:5432/database")
        }
        return url
    }

    /// An error about a setting, naming the file and the setting's line when it was read from one.
    package func error(_ code: StorageError.Code, _ message: String, setting: String, recovery: String? = nil)
        -> StorageError
    {
        var error = StorageError(code, message, path: path, recovery: recovery)
        error.line = lines[setting]
        error.operation = "read the store configuration"
        return error
    }
}
