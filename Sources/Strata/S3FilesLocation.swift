public import StrataCore
public import StrataS3
import StrataSecrets

/// Where a store's files tier lives on S3, as its configuration (or `Storage(filesURL:)`, or `strata files --url`)
/// says: the `s3://bucket/prefix` URL, the server and region, and where the credentials come from — never the
/// credentials themselves, which are read only when the engine is made.
///
/// ```swift
/// var files = StoreConfiguration.Files()
/// files.backend = "s3"
/// let location = try S3FilesLocation(url: "s3://media/exports/", settings: files)
/// print(location)   // s3://media/exports/ at https://s3.us-east-1.amazonaws.com (us-east-1)
/// ```
public struct S3FilesLocation: Sendable, Hashable, CustomStringConvertible {
    /// The `s3://bucket/prefix` URL.
    public let url: String
    /// The `[files]` settings the location was read with: endpoint, region and the credentials' source.
    public let settings: StoreConfiguration.Files
    /// The bucket, prefix, endpoint and region, checked; its credentials are empty placeholders.
    let checked: S3Configuration

    /// Checks a location without reading any credential.
    /// - Parameters:
    ///   - url: `s3://bucket` or `s3://bucket/prefix`.
    ///   - settings: The `[files]` settings: ``/StrataCore/StoreConfiguration/Files/endpoint`` and
    ///     ``/StrataCore/StoreConfiguration/Files/region`` win over `AWS_ENDPOINT_URL` and `AWS_REGION`.
    ///   - environment: The variables to read. The default is the process environment.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the malformed part in
    ///   ``/StrataCore/StorageError/attribute``: `scheme`, `bucket` (or credentials written in the URL, which is
    ///   never repeated), `prefix` or `endpoint`.
    public init(
        url: String, settings: StoreConfiguration.Files = StoreConfiguration.Files(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        self.url = url
        self.settings = settings
        checked = try Self.configuration(
            url: url, settings: settings, credentials: S3Credentials(accessKeyID: "", secretAccessKey: ""),
            environment: environment)
    }

    /// The bucket and prefix as one canonical URL, whichever way ``url`` spells them (`s3://media/x` and
    /// `s3://media/x/` are one location): what ties a shared store's catalog to its files.
    public var canonicalURL: String { "s3://" + checked.bucket + "/" + checked.prefix }

    /// `s3://bucket/prefix at endpoint (region)`: no credential is ever part of it.
    public var description: String { checked.description }

    /// The client configuration, with the credentials from where ``settings`` says: the `AWS_*` variables, or the
    /// keyring item ``/StrataCore/FilesCredentials/secretsService`` of the store's secrets tier, read through
    /// `secrets`.
    /// - Parameters:
    ///   - environment: The variables to read. The default is the process environment.
    ///   - secrets: Opens the store's keyring, unlocked; called only for credentials kept there.
    /// - Throws: ``/StrataCore/StorageError`` `.authenticationFailed` (``/StrataCore/StorageError/attribute``
    ///   `credentials`) naming what to set when there are none; the keyring's error when it cannot be opened.
    public func configuration(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        secrets: () throws -> SecretStore
    ) throws -> S3Configuration {
        switch settings.credentials {
        case .environment:
            guard Self.keyVariables.allSatisfy({ !(environment[$0] ?? "").isEmpty }) else {
                var error = StorageError(
                    .authenticationFailed,
                    "no S3 credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set",
                    tier: .files,
                    recovery: "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary "
                        + "keys), or keep the secret key in the store's keyring: `credentials = secrets` and "
                        + "`access-key-id` in [files] of \(StoreConfiguration.fileName)")
                error.attribute = "credentials"
                throw error
            }
            return try Self.configuration(url: url, settings: settings, credentials: nil, environment: environment)
        case .secrets(let accessKeyID):
            let service = FilesCredentials.secretsService
            guard let secret = try secrets().get(service: service, account: accessKeyID)?.stringValue,
                !secret.isEmpty
            else {
                var error = StorageError(
                    .authenticationFailed,
                    "the configuration keeps the S3 secret key in the keyring, which has no item for this access key",
                    tier: .files, key: accessKeyID,
                    recovery: "Store it with 'strata secrets set \(service) \(accessKeyID) --value-file FILE'")
                error.attribute = "credentials"
                throw error
            }
            return try Self.configuration(
                url: url, settings: settings,
                credentials: S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secret), environment: environment)
        }
    }

    /// The variables that hold the key pair (`AWS_SESSION_TOKEN` is optional).
    static let keyVariables = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]

    /// What a files tier on this location reports, as its engine states it, known without contacting the server
    /// (the engine is made with placeholder credentials and sends nothing).
    var facts: BackendFacts {
        guard let engine = try? S3FileEngine(configuration: checked) else {
            return BackendFacts(
                tier: .files, name: "s3", concurrencyGuarantee: "unknown: the S3 engine refused its configuration",
                durability: .durable, layout: [])
        }
        return BackendFacts(
            tier: .files, name: engine.name, concurrencyGuarantee: engine.concurrencyGuarantee,
            durability: engine.durability, layout: engine.layout)
    }

    static func configuration(
        url: String, settings: StoreConfiguration.Files, credentials: S3Credentials?, environment: [String: String]
    ) throws(StorageError) -> S3Configuration {
        var endpoint: URL?
        if let text = settings.endpoint {
            guard let parsed = URL(string: text) else {
                var error = StorageError(
                    .invalidArgument, "the [files] endpoint is not a URL", tier: .files,
                    recovery: "Write it as http(s)://host[:port]")
                error.attribute = "endpoint"
                throw error
            }
            endpoint = parsed
        }
        return try S3Configuration(
            url: url, endpoint: endpoint, region: settings.region, credentials: credentials, environment: environment)
    }
}
