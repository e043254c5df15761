package import StrataCore

/// One data key and the keys derived from it: the two class keys, the manifest's key, the rotation record's key
/// and the public check value. (The name key is not among them: a rotation replaces the data key and keeps it.)
///
/// `lock()` wipes the data key and the `whenUnlocked` key; the others live until the store is released (the
/// rotation key too, so `afterFirstUnlock` items stay readable while locked during a rotation: the next data key
/// it opens is locked again at once).
package struct DataKeys: Sendable {
    package let data: GuardedKey
    package let whenUnlocked: GuardedKey
    package let afterFirstUnlock: GuardedKey
    package let manifest: GuardedKey
    /// Seals the next data key in `rotation.key` (see ``RotationFile``).
    package let rotation: GuardedKey
    /// Tells this key apart from another without revealing it (``GuardedKey/check()``).
    package let check: [UInt8]

    package init(_ data: GuardedKey) throws {
        self.data = data
        whenUnlocked = try data.derive("strata item key: when unlocked")
        afterFirstUnlock = try data.derive("strata item key: after first unlock")
        manifest = try data.derive("strata item manifest")
        rotation = try data.derive("strata rotation wrap")
        check = try data.check()
    }

    /// The key that seals items of an accessibility class.
    package func classKey(_ accessibility: SecretAccessibility) -> GuardedKey {
        accessibility.survivesLock ? afterFirstUnlock : whenUnlocked
    }

    /// Whether the data key is out of memory.
    package var isLocked: Bool { data.isWiped }

    /// Wipes what `lock()` wipes.
    package func lock() {
        data.wipe()
        whenUnlocked.wipe()
    }
}
