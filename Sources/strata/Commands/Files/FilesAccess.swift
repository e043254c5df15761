import Foundation
import Strata

/// The options a `strata files` verb opens its file store with (`--root`, `--url`), and how it opens it: the
/// folder under the root, or S3.
struct FilesAccess: Sendable {
    static let urlOption = Option(
        "--url", "URL",
        "An s3://bucket/prefix URL: the files on S3 (or set STRATA_FILES_URL). The server, region and keys come from "
            + "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
    /// The options every files verb takes (`put` and `import` add ``StoreRoot/createFlag``).
    static let options: [any OptionDeclaration] = [StoreRoot.option, urlOption]

    var root: StoreRoot
    /// `--url`, if given and not empty.
    var url: String?

    init(parsing arguments: inout ParsedArguments, acceptsCreate: Bool = false) throws {
        root = try StoreRoot(parsing: &arguments, acceptsCreate: acceptsCreate)
        url = try arguments.value(Self.urlOption).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The file tier: on S3 when `--url` is an `s3://` URL, or the root's configuration puts the files tier there,
    /// or (without a configuration that says otherwise) `STRATA_FILES_URL` is one; else the folder under the root,
    /// or `nil` when a read verb finds none (it is not created for a read).
    /// - Parameter reportingChanges: Whether the verb changes files, which the store's catalog then records. The
    ///   default is `use == .write`.
    func open(for use: StoreRoot.Use, reportingChanges: Bool? = nil) throws -> FileStore? {
        let reportingChanges = reportingChanges ?? (use == .write)
        if let location = try location(for: use) {
            var configuration = FilesConfiguration()
            if reportingChanges, try root.path() != nil {
                configuration.placement = try StoreAccess.ledger(for: StoreAccess.paths(root, for: use))
            }
            let secrets = SecretsAccess(root: root)
            return try Storage.s3FileStore(location, configuration: configuration) {
                try secrets.open(for: .read)
            }
        }
        let paths = try StoreAccess.paths(root, for: use)
        guard use == .write || FileManager.default.fileExists(atPath: paths.directoryPath(for: .files)) else {
            return nil
        }
        return try FileStore(paths: paths)
    }

    /// The S3 location of the file tier (see ``open(for:reportingChanges:)``), or `nil` for the folder under the
    /// root. `--url` takes the endpoint, region and credentials' source of the root's configuration when a root is
    /// given.
    /// - Throws: ``StorageError`` `.invalidArgument` naming the malformed part of the URL (its `attribute`).
    func location(for use: StoreRoot.Use) throws -> S3FilesLocation? {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try StoreAccess.configuration(root, for: use)
        if let url { return try S3FilesLocation(url: url, settings: configuration.files, environment: environment) }
        return try Storage.filesLocation(configuration, environment: environment)
    }

    /// The error of a verb that needs a file from a store whose file tier does not exist yet.
    func noFiles() throws -> StorageError {
        StorageError(
            .notFound, "the store has no files yet", tier: .files,
            path: try StoreAccess.paths(root, for: .read).directoryPath(for: .files),
            recovery: "Add one with 'strata files put KEY FILE'")
    }
}
