/// When an item can be read, as on Apple's keychain.
public enum SecretAccessibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// Readable only while the store is unlocked; ``SecretStore/lock()`` makes it unreadable.
    case whenUnlocked
    /// Readable from the first unlock until the process ends, even after ``SecretStore/lock()``.
    case afterFirstUnlock
    /// Like ``whenUnlocked``, bound to this machine and never exported.
    case whenUnlockedThisDeviceOnly
    /// Like ``afterFirstUnlock``, bound to this machine and never exported.
    case afterFirstUnlockThisDeviceOnly

    /// Whether the item stays readable after ``SecretStore/lock()``.
    public var survivesLock: Bool { self == .afterFirstUnlock || self == .afterFirstUnlockThisDeviceOnly }

    /// Whether the item is bound to this machine (and never exported).
    public var isThisDeviceOnly: Bool { self == .whenUnlockedThisDeviceOnly || self == .afterFirstUnlockThisDeviceOnly }

    /// The byte stored in item headers.
    var code: UInt8 {
        switch self {
        case .whenUnlocked: 1
        case .afterFirstUnlock: 2
        case .whenUnlockedThisDeviceOnly: 3
        case .afterFirstUnlockThisDeviceOnly: 4
        }
    }

    init?(code: UInt8) {
        guard let found = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = found
    }
}
