import Foundation

/// The access key pair that signs S3 requests.
///
/// Neither half is ever printed: the description, the debug description and the mirror show `<redacted>`, and no
/// ``/StrataCore/StorageError`` the client throws contains them.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access key ID (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`).
    public var secretAccessKey: String
    /// A session token for temporary credentials (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Creates credentials from explicit values.
    /// - Parameters:
    ///   - accessKeyID: The access key ID.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: A session token, for temporary credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "S3Credentials(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Every non-empty secret string these credentials hold: what must never appear in an error or a log.
    var secrets: [String] { [accessKeyID, secretAccessKey, sessionToken ?? ""].filter { !$0.isEmpty } }

    /// `text` with every occurrence of a credential replaced by `<redacted>`.
    func redacting(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
}
