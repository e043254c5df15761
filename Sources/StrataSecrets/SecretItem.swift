public import Foundation

/// An item's attributes, without its value (what listings return).
public struct SecretItem: Sendable, Hashable, CustomStringConvertible {
    /// The largest service, account or label accepted, in UTF-8 bytes: 1024 each. Larger ones are refused with
    /// `too-large` naming the attribute, before anything is written.
    public static let attributeLimit = 1024

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
