public import Foundation

/// An item's attributes, without its value (what listings return).
public struct SecretItem: Sendable, Hashable, CustomStringConvertible {
    /// The service, such as `api.example.com`.
    public var service: String
    /// The account within the service, such as a user name.
    public var account: String
    /// A label for people.
    public var label: String
    /// When the item can be read.
    public var accessibility: SecretAccessibility
    /// When the item was first stored.
    public var creationDate: Date
    /// When its value last changed.
    public var modificationDate: Date
    /// The value's size in bytes.
    public var valueSize: Int

    public var description: String {
        "\(service)/\(account) [\(accessibility.rawValue)]\(label.isEmpty ? "" : " \"\(label)\"")"
    }
}
