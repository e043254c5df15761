import Foundation
public import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keychain-style secrets in encrypted files, sealed with libsodium.
///
/// Items are addressed like keychain items, by service and account, and live in a keyring: a folder
/// (`<root>/secrets/<keyring>/`) that several programs can share, like an access group. Each keyring has one random
/// 256-bit data key, wrapped by a key from a ``KeyProvider``; changing the passphrase rewraps that key only, while
/// ``rotate(with:)`` replaces it and re-seals every item. Each item is sealed with XChaCha20-Poly1305 under a random
/// nonce, bound to its identity, in a file whose name is a keyed hash that reveals neither service nor account; an
/// authenticated manifest of item generations refuses an older item file put back (`rolled-back`).
///
/// ```swift
/// let store = try SecretStore(keyring: "default", paths: paths, unlockingWith: .passphrase("correct horse"))
/// try store.set(Secret("tok_live_8c1f2a"), service: "api.example.com", account: "alice")
/// if let token = try store.get(service: "api.example.com", account: "alice") {   // nil only when absent
///     print(token)   // <redacted>
/// }
/// store.lock()       // wipes keys; `afterFirstUnlock` items stay readable
/// ```
///
/// Unlike a keychain wrapper that saves by deleting then adding, a set replaces the item atomically, so a crash
/// never loses it; and `get` returns `nil` only when the item does not exist: locked, tampered, wrong key and I/O
/// failures all throw.
public final class SecretStore: Sendable {
    /// The keyring's name (the access group), such as `default` or `group.com.example.shared`.
    public let keyring: String
    /// The keyring's folder.
    public let directory: String
    /// Key-derivation cost and limits.
    public let configuration: SecretsConfiguration

    var keyringPath: String { directory + "/keyring.json" }
    /// The store root: every file operation opens the keyring folder from it by descriptor.
    let paths: StoragePaths
    /// How changes of `Storage`'s items keep the store root's catalog true (``reportingChange(setting:removing:_:)``).
    let placement: TierPlacement

    /// The keyring folder (0700 whatever the sharing), opened from the root, never through a link.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when it does not exist (and `create` is `false`), or, for a
    ///   store whose opener could not unlock it, why (``lockedReason``): with no key, the keyring cannot be created
    ///   either, and the missing key is what to fix.
    func keyringFolder(create: Bool = false) throws -> DirectoryHandle {
        guard let folder = try existingKeyringFolder(create: create) else {
            if !wasUnlocked, let reason = lockedReason.withLock({ $0 }) { throw reason }
            throw StorageError(
                .notFound, "there is no keyring '\(keyring)'", tier: .secrets, path: directory,
                recovery: "Check the keyring's name, or create it by unlocking it from a program that may create it")
        }
        return folder
    }

    /// The keyring folder, or `nil` when it does not exist; only the creation of a keyring creates it.
    ///
    /// The folder opened last is kept, and given again while its path still names that very folder (same
    /// device and inode, and not a link: one `lstat`) instead of opening the root, the tier's folder and the
    /// keyring's again, with their checks, on every call. A folder moved away, replaced or swapped for a link
    /// fails the comparison and is opened afresh, with every check.
    func existingKeyringFolder(create: Bool = false) throws -> DirectoryHandle? {
        if let cached = openFolder.withLock({ $0 }), let now = try? Sys.lstat(directory),
            UInt64(now.st_dev) == cached.device, UInt64(now.st_ino) == cached.inode
        {
            return cached.handle
        }
        let folder: DirectoryHandle?
        do throws(StorageError) {
            guard let tier = try paths.openDirectory(for: .secrets, create: create) else { return nil }
            folder = try tier.openDirectory(keyring, create: create, permissions: 0o700)
        } catch {
            throw error.attributed(tier: .secrets, key: nil)
        }
        if let folder, let status = try? folder.status() {
            openFolder.withLock { $0 = (folder, UInt64(status.st_dev), UInt64(status.st_ino)) }
        }
        return folder
    }

    /// The keyring's cross-process lock (`keyring.lock`, never deleted).
    func keyringLock(in folder: DirectoryHandle) -> FileLock { FileLock(in: folder, name: "keyring.lock") }

    struct Keys {
        var keyringID: [UInt8]?
        /// The data key `keyring.json` gave, and its derived keys.
        var current: DataKeys?
        /// During a rotation, the other data key (see ``SecretStore/rotate(with:)``): readers try it when the
        /// current one does not open an item.
        var next: DataKeys?
        var names: GuardedKey?
        /// The manifest last read or written: its file's bytes, the stamp of that file when it was settled at
        /// the read (see ``FileStamp``), the file held open when it was read (see ``PinnedFile``: it vouches for
        /// the bytes before they settle), and what the bytes hold.
        var manifestCache: (bytes: Data, stamp: FileStamp?, pin: PinnedFile?, manifest: ItemManifest)?
        /// Whether `keyring.json` requires the item manifest (version 2).
        var requiresManifest = false
        var providerKind: String?
        /// The `keyring.json` this process unlocked with, or wrote last: when the manifest is tagged under a key this
        /// process does not know, whether the file changed since tells a rotation elsewhere from an old copy put back.
        var keyringFile: KeyringFile?
        /// Item file names already computed, so warm reads skip the keyed hash.
        var fileNames: [ItemIdentity: String] = [:]
        /// By item file name, what this store last opened or sealed there (see ``OpenedItem``): a warm read of an
        /// unchanged file opens only the value box, and reads nothing but the file's stamp once it is settled.
        var openedItems: [String: OpenedItem] = [:]
    }

    // Key material, all in guarded memory. `lock()` wipes the data keys and the `whenUnlocked` class keys; the
    // name key, the manifest keys and the `afterFirstUnlock` class keys live until the store is released.
    let keyMaterial = Mutex(Keys())
    /// How many bytes of item files this store read, for tests that check what a replacement reads.
    let itemBytesRead = Atomic<Int>(0)
    /// Why the store is still locked, when whoever opened it (`Storage`) tried to unlock it and failed: the error
    /// the operations that need a key throw until it is unlocked, so the first use reports the real cause.
    let lockedReason = Mutex<StorageError?>(nil)

    /// The keyring folder opened last, with its device and inode (see ``existingKeyringFolder(create:)``).
    let openFolder = Mutex<(handle: DirectoryHandle, device: UInt64, inode: UInt64)?>(nil)

    /// Opens a keyring, locked. Creates nothing: the keyring (its folder, 0700, and `keyring.json`) is created by
    /// the first ``unlock(with:createIfMissing:)`` that may create it.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for a bad keyring name, `.symbolicLink` when the
    ///   folder is a link, or an I/O error.
    public init(
        keyring: String = "default", paths: StoragePaths, configuration: SecretsConfiguration = SecretsConfiguration()
    ) throws {
        try Self.validateKeyringName(keyring)
        self.keyring = keyring
        self.configuration = configuration
        self.paths = paths
        self.directory = paths.root + "/" + Tier.secrets.directoryName + "/" + keyring
        self.placement = try TierPlacement(.secrets, store: keyring, paths: paths, ledger: configuration.placement)
        if let folder = try existingKeyringFolder() { AtomicFile.removeStaleTemporaries(in: folder) }
    }

    /// Checks a keyring's name: letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument`, or `.io` when libsodium cannot start.
    package static func validateKeyringName(_ keyring: String) throws {
        try Sodium.ensureReady()
        guard !keyring.isEmpty, keyring.count <= 100,
            keyring.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
            !keyring.hasPrefix(".")
        else {
            throw StorageError(
                .invalidArgument, "a keyring name is letters, digits, '.', '_' and '-' (not starting with '.')",
                tier: .secrets, key: keyring)
        }
    }

    /// Opens and unlocks a keyring, creating it on first use (see ``unlock(with:createIfMissing:)``).
    public convenience init(
        keyring: String = "default", paths: StoragePaths, unlockingWith provider: KeyProvider,
        configuration: SecretsConfiguration = SecretsConfiguration()
    ) throws {
        try self.init(keyring: keyring, paths: paths, configuration: configuration)
        try unlock(with: provider)
    }

    /// Whether the keyring file exists yet.
    public var keyringExists: Bool { ((try? existingKeyringFolder()?.status(of: "keyring.json")) ?? nil) != nil }

    /// Whether the keyring is protected by a passphrase (`true`), by a 32-byte key — key file, environment
    /// variable or in-memory key, which are interchangeable (`false`) — or does not exist yet (`nil`). Needs no key.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` or `.unsupportedVersion` for a bad keyring file.
    public var isPassphraseProtected: Bool? {
        get throws { try readKeyring().map { $0.provider == KeyProvider.passphraseKind } }
    }

    /// Whether the data key is out of memory (never unlocked, or locked since).
    public var isLocked: Bool { keyMaterial.withLock { $0.current?.isLocked ?? true } }

    /// Unlocks the keyring, and creates it (with a new random data key) if it does not exist yet and `createIfMissing`.
    ///
    /// When a crash or a full disk interrupted a rotation (``rotate(with:)``), unlocking finishes it first; when it
    /// cannot write (the disk still full), it leaves the rotation to a later unlock, and items read under either key.
    ///
    /// A keyring is never created over item files: when `keyring.json` is missing but items are there, they were
    /// sealed under a key that only that file can give back, so a new keyring would silently hide them.
    /// - Parameters:
    ///   - provider: The passphrase or key. A keyring made with a key file, an environment variable or an
    ///     in-memory key opens with any of the three holding the same 32 bytes.
    ///   - createIfMissing: Whether a missing keyring is created. The default is `true`; read-only callers pass
    ///     `false`, so a mistyped keyring name is an error, not a new empty keyring.
    /// - Throws: ``/StrataCore/StorageError``: `.authenticationFailed` for a wrong passphrase or key (nothing changes),
    ///   `.invalidArgument` for a passphrase on a key-protected keyring or the reverse, `.notFound` for a missing
    ///   keyring when not `createIfMissing`, `.corrupt` for a missing `keyring.json` beside item files (the error names
    ///   them) or a bad keyring file, `.limitExceeded` for Argon2id costs over
    ///   ``SecretsConfiguration/passwordHashLimit`` (refused before deriving), `.unsupportedVersion`.
    public func unlock(with provider: KeyProvider, createIfMissing: Bool = true) throws {
        try unlock(with: provider, createIfMissing: createIfMissing, afterRotation: false)
    }

    /// ``unlock(with:createIfMissing:)``, once more when another process finished a rotation meanwhile.
    private func unlock(with provider: KeyProvider, createIfMissing: Bool, afterRotation: Bool) throws {
        let file: KeyringFile
        let unwrapped: (data: GuardedKey, names: GuardedKey)
        if let existing = try readKeyring() {
            file = existing
            unwrapped = try unwrap(existing, with: provider)
        } else {
            guard createIfMissing else { throw try missingKeyring() }
            (file, unwrapped) = try createKeyring(with: provider)
        }
        let current = try DataKeys(unwrapped.data)
        keyMaterial.withLock { keys in
            keys.keyringID = file.id
            keys.current = current
            keys.next = nil
            keys.names = unwrapped.names
            keys.manifestCache = nil
            keys.requiresManifest = file.version >= 2
            keys.fileNames = [:]
            keys.openedItems = [:]
            keys.providerKind = file.provider
            keys.keyringFile = file
        }
        lockedReason.withLock { $0 = nil }
        if try finishInterruptedRotation(with: provider, keyring: file), !afterRotation {
            try unlock(with: provider, createIfMissing: false, afterRotation: true)
        }
    }

    /// Records why the store's opener could not unlock it (see ``lockedReason``); the next successful unlock forgets
    /// it.
    package func rememberWhyLocked(_ error: StorageError) {
        lockedReason.withLock { $0 = error }
    }

    /// Whether this store was ever unlocked (a later ``lock()`` keeps it so).
    var wasUnlocked: Bool { keyMaterial.withLock { $0.current != nil } }

    /// Wipes the data key and the `whenUnlocked` key from memory. `afterFirstUnlock` items stay readable (and
    /// writable) until the store is released, as on Apple's keychain.
    public func lock() {
        keyMaterial.withLock { keys in
            keys.current?.lock()
            keys.next?.lock()
        }
    }

    /// Rewraps the data key under a new provider (a new passphrase, or another kind of key). Items are not
    /// touched: this is one atomic write of `keyring.json` (and of the item manifest). An old copy of
    /// `keyring.json` with the old passphrase still opens every item: ``rotate(with:)`` replaces the data key.
    /// - Throws: ``/StrataCore/StorageError`` `.locked` when the store is locked, or a write error (the old key still
    ///   works).
    public func changeKey(to provider: KeyProvider) throws {
        let (current, names) = keyMaterial.withLock { ($0.current, $0.names) }
        guard current != nil else { throw notUnlocked("changing the key") }
        guard let dataKey = current?.data, !dataKey.isWiped, let names else {
            throw StorageError(.locked, "changing the key needs the store unlocked", tier: .secrets, path: keyringPath)
        }
        let folder = try keyringFolder()
        try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
            guard let current = try readKeyring() else {
                throw StorageError(.notFound, "the keyring file disappeared", tier: .secrets, path: keyringPath)
            }
            let kdf = provider.isPassphrase ? configuration.newKDFParameters() : nil
            let wrapping = try provider.wrappingKey(kdf: kdf)
            defer { wrapping.wipe() }
            // The file written is version 2, which requires the manifest: a keyring made before manifests gets
            // one first (empty when it has none: no item is older than an entry it lacks).
            try advanceManifest(in: folder) { _, _ in }
            let file = try KeyringFile.wrapping(
                dataKey, names: names, name: keyring, id: current.id, provider: provider.kind, kdf: kdf,
                with: wrapping)
            try AtomicFile.write(file.serialized, in: folder, name: "keyring.json")
            keyMaterial.withLock { $0.keyringFile = file }
        }
        keyMaterial.withLock { keys in
            keys.providerKind = provider.kind
            keys.requiresManifest = true
        }
    }

    func readKeyring() throws -> KeyringFile? {
        guard let folder = try existingKeyringFolder(),
            let data = try AtomicFile.read(in: folder, name: "keyring.json", maximumSize: 64 << 10)
        else { return nil }
        return try KeyringFile.parse(data, expectedName: keyring, path: keyringPath)
    }

    func unwrap(_ file: KeyringFile, with provider: KeyProvider) throws -> (data: GuardedKey, names: GuardedKey) {
        try file.unwrap(with: provider, configuration: configuration, path: keyringPath)
    }
}
