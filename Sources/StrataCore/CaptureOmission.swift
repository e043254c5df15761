/// One value a capture left out on purpose: the tier, the key, the file, and why.
public struct CaptureOmission: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Why a value was left out.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// A secret whose accessibility is `...ThisDeviceOnly`: it never leaves this machine, so no backup holds it.
        case thisDeviceOnly = "this-device-only"
        /// A keyring's item kept on a server whose keyring is gone there (its item row outlived the keyring's row):
        /// nothing could open it, so no restore could use it.
        case orphaned
    }

    /// The tier that holds the value.
    public var tier: Tier
    /// The key, as the tier names it (a secret's `service/account` when its keyring was unlocked; otherwise its
    /// file name, which does not reveal the account).
    public var key: String
    /// The file left out, relative to the store root.
    public var path: String
    /// Why.
    public var reason: Reason

    /// Creates an omission.
    public init(tier: Tier, key: String, path: String, reason: Reason) {
        self.tier = tier
        self.key = key
        self.path = path
        self.reason = reason
    }

    /// One line: `secrets: api/token (secrets/default/…) left out: this-device-only`.
    public var description: String {
        "\(tier.rawValue): \(key.shortenedForDisplay()) (\(path.escapedForDisplay)) left out: \(reason.rawValue)"
    }
}
