import StrataS3

// Where the files tier lives: a folder under the root, or an S3 bucket, chosen by configuration the way a
// `postgresql://` URL chooses PostgreSQL for records. Explicit arguments win over the file; the file wins over the
// environment.
extension Storage {
    /// The environment variable that puts the files tier on S3 (`s3://bucket/prefix`) when no configuration file
    /// names the files backend.
    public static let filesURLVariable = "STRATA_FILES_URL"

    /// Resolves where the files tier lives and makes `configuration` say so: the explicit argument (an `s3://` URL
    /// is S3, `""` the folder under the root), else the configuration (a file that names the files backend
    /// decides), else ``filesURLVariable``.
    /// - Returns: The S3 location, or `nil` for the folder under the root.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the malformed part (see
    ///   ``S3FilesLocation/init(url:settings:environment:)``), or an `s3` files tier without a location.
    static func resolveFiles(
        _ explicit: String?, _ configuration: inout StoreConfiguration, environment: [String: String]
    ) throws -> S3FilesLocation? {
        let url: String
        if let explicit {
            guard !explicit.isEmpty else {
                configuration.files.backend = "filesystem"
                return nil
            }
            url = explicit
        } else if configuration.files.backend != "filesystem" || configuration.lines["files.backend"] != nil {
            guard let configured = try configuration.filesURL(environment: environment) else { return nil }
            return try S3FilesLocation(url: configured, settings: configuration.files, environment: environment)
        } else if let variable = environment[filesURLVariable], !variable.isEmpty {
            url = variable
        } else {
            return nil
        }
        guard url.lowercased().hasPrefix("s3://") else {
            var error = StorageError(
                .invalidArgument, "a files location is an s3://bucket/prefix URL", tier: .files,
                recovery: "Write it as s3://bucket/prefix, or leave it empty for the folder under the root")
            error.attribute = "scheme"
            throw error
        }
        configuration.files.backend = "s3"
        configuration.files.url = url
        return try S3FilesLocation(url: url, settings: configuration.files, environment: environment)
    }

    /// The S3 location of the files tier of a store opened with `configuration` and no explicit files URL, or
    /// `nil` when its files stay in the folder under the root.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the malformed part (see
    ///   ``S3FilesLocation/init(url:settings:environment:)``), or an `s3` files tier without a location.
    public static func filesLocation(_ configuration: StoreConfiguration, environment: [String: String]) throws
        -> S3FilesLocation?
    {
        var configuration = configuration
        return try resolveFiles(nil, &configuration, environment: environment)
    }

    /// A file store on S3: the engine made from `location` with its credentials (read now, from where the location
    /// says), and the store's files settings.
    /// - Parameters:
    ///   - location: The bucket and prefix.
    ///   - configuration: The files tier's chunk size and lock timeout. The default is the built-in one.
    ///   - secrets: Opens the store's keyring, unlocked; called only when the credentials are kept there.
    /// - Throws: ``/StrataCore/StorageError`` `.authenticationFailed` naming what to set when there are no
    ///   credentials.
    public static func s3FileStore(
        _ location: S3FilesLocation, configuration: FilesConfiguration = FilesConfiguration(),
        secrets: () throws -> SecretStore
    ) throws -> FileStore {
        let client = try location.configuration(secrets: secrets)
        return FileStore(engine: try S3FileEngine(configuration: client), configuration: configuration)
    }

    /// The built-in `s3` files backend on `location`, opened with `files` (its catalog).
    static func s3Backend(
        _ location: S3FilesLocation, secretsKey: KeyProvider?, configuration: StoreConfiguration,
        files: FilesConfiguration
    ) -> BuiltIn {
        let keyring = configuration.secrets.keyring
        return BuiltIn(tier: .files, name: "s3", facts: { _ in location.facts }) { paths in
            try s3FileStore(location, configuration: files) {
                let store = try SecretStore(keyring: keyring, paths: requirePaths(paths, for: .secrets))
                do {
                    try store.unlock(with: try secretsKey ?? environmentSecretsKey(for: store))
                } catch let error as StorageError where error.code == .locked {
                    var refused = error
                    refused.message = "the S3 secret key is in the keyring, which cannot be unlocked: " + error.message
                    throw refused
                }
                return store
            }
        }.shared()
    }
}
