/// Where the files tier's S3 engine finds its access key pair: a store configuration names the source, never the
/// secret itself.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.files.backend = "s3"
/// configuration.files.url = "s3://media/exports/"
/// configuration.files.credentials = .secrets(accessKeyID: "AKIAEXAMPLE")  // the secret key in the keyring
/// ```
public enum FilesCredentials: Sendable, Hashable {
    /// The standard variables `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    case environment
    /// The store's secrets tier: the item of the configured keyring whose service is ``secretsService`` and whose
    /// account is `accessKeyID`; its value is the secret access key.
    case secrets(accessKeyID: String)

    /// The service of the secrets-tier item that holds an S3 secret access key.
    public static let secretsService = "strata.s3"
}
