/// One item of a batch written by ``SecretStore/set(_:)``: what ``SecretStore/set(_:service:account:label:accessibility:)-(Secret,_,_,_,_)``
/// takes, as a value.
///
/// ```swift
/// try store.set([
///     SecretWrite(Secret("tok_a"), service: "api.example.com", account: "alice"),
///     SecretWrite(Secret("tok_b"), service: "api.example.com", account: "bob", label: "Bob's token"),
/// ])
/// ```
public struct SecretWrite: Sendable, CustomStringConvertible {
    /// The secret.
    public var value: Secret
    /// The service, such as `api.example.com`.
    public var service: String
    /// The account within it.
    public var account: String
    /// A label for people; `nil` keeps the existing item's label, or is empty.
    public var label: String?
    /// When it can be read.
    public var accessibility: SecretAccessibility

    /// One item to store.
    /// - Parameters:
    ///   - value: The secret.
    ///   - service: The service.
    ///   - account: The account within it.
    ///   - label: A label for people. The default keeps the existing item's label, or is empty.
    ///   - accessibility: When it can be read. The default is ``SecretAccessibility/whenUnlocked``.
    public init(
        _ value: Secret, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) {
        self.value = value
        self.service = service
        self.account = account
        self.label = label
        self.accessibility = accessibility
    }

    /// `service/account` and the value redacted.
    public var description: String { "\(service)/\(account) = \(value)" }
}
