public import Foundation
import StrataCore

extension SecretStore {
    static let exportMagic = Array("STRATASX".utf8)
    static let exportVersion: UInt8 = 1

    /// Exports every readable item, sealed under a passphrase, for moving to another machine or keyring.
    ///
    /// `...ThisDeviceOnly` items are never included; those sealed on another machine (a keyring folder copied
    /// here) cannot even be read, and are reported in `skipped`. The archive is: a header with the Argon2id
    /// parameters and the nonce, then one XChaCha20-Poly1305 box holding every item (attributes and value), whose
    /// associated data is the whole header.
    /// - Returns: The archive, how many items it holds, and the items of another machine that were left out.
    /// - Throws: ``/StrataCore/StorageError`` `.locked` unless the store is unlocked (so `whenUnlocked` items are not
    ///   silently left out).
    public func exportItems(protectedBy passphrase: Secret) throws -> (
        archive: Data, count: Int, skipped: [SecretListing.Skipped]
    ) {
        guard wasUnlocked else { throw notUnlocked("exporting") }
        guard !isLocked else {
            throw StorageError(.locked, "exporting needs the store unlocked", tier: .secrets, path: directory)
        }
        let (found, skipped) = try allItems(values: true)
        let items = found.filter { !$0.0.accessibility.isThisDeviceOnly }
        var plaintext = [UInt8]()
        defer { plaintext.withUnsafeMutableBytes { Sodium.memzero($0) } }
        ItemEnvelope.appendUInt64(UInt64(items.count), to: &plaintext, width: 4)
        for (item, value) in items {
            guard let value else { continue }
            ItemEnvelope.appendField(item.service, to: &plaintext)
            ItemEnvelope.appendField(item.account, to: &plaintext)
            ItemEnvelope.appendField(item.label, to: &plaintext)
            plaintext.append(item.accessibility.code)
            ItemEnvelope.appendUInt64(item.creationDate.timeIntervalSince1970.bitPattern, to: &plaintext)
            ItemEnvelope.appendUInt64(UInt64(value.count), to: &plaintext, width: 4)
            value.withUnsafeBytes { plaintext.append(contentsOf: $0) }
        }
        let kdf = configuration.newKDFParameters()
        let key = try KeyProvider.passphrase(passphrase).wrappingKey(kdf: kdf)
        defer { key.wipe() }
        var header = Self.exportMagic + [Self.exportVersion] + kdf.salt
        ItemEnvelope.appendUInt64(kdf.operations, to: &header)
        ItemEnvelope.appendUInt64(UInt64(kdf.memory), to: &header)
        let nonce = Sodium.random(Sodium.nonceBytes)
        header += nonce
        let sealed = try key.withBytes { key in
            plaintext.withUnsafeBytes { Sodium.seal($0, additionalData: header, nonce: nonce, key: key) }
        }
        return (Data(header + sealed), items.count, skipped)
    }

    /// Imports an archive made by ``exportItems(protectedBy:)``.
    /// - Parameters:
    ///   - archive: The archive.
    ///   - passphrase: Its passphrase.
    ///   - replacingExisting: Whether an item that exists here is replaced. The default is `false` (kept).
    /// - Returns: How many items were stored.
    /// - Throws: ``/StrataCore/StorageError`` `.authenticationFailed` (wrong passphrase or damaged archive; nothing
    ///   stored), `.limitExceeded` for Argon2id costs over ``SecretsConfiguration/passwordHashLimit`` (refused before
    ///   deriving anything), `.unsupportedVersion`, `.corrupt`, `.tooLarge` for an item over a limit (checked for every
    ///   item before any is stored), or a write error.
    @discardableResult
    public func importItems(_ archive: Data, passphrase: Secret, replacingExisting: Bool = false) throws -> Int {
        let bytes = [UInt8](archive)
        let headerSize = 8 + 1 + Sodium.saltBytes + 16 + Sodium.nonceBytes
        guard bytes.count >= headerSize + Sodium.tagBytes, bytes.starts(with: Self.exportMagic) else {
            throw StorageError(.corrupt, "not a Strata secrets archive, or truncated", tier: .secrets)
        }
        guard bytes[8] == Self.exportVersion else {
            throw StorageError(
                .unsupportedVersion,
                "the archive has format version \(bytes[8]); this program reads \(Self.exportVersion)",
                tier: .secrets)
        }
        let salt = Array(bytes[9..<(9 + Sodium.saltBytes)])
        func number(_ at: Int) -> UInt64 { bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        let operations = number(9 + Sodium.saltBytes)
        let memory = number(17 + Sodium.saltBytes)
        guard (1...64).contains(operations), (8192...(4 << 30)).contains(memory) else {
            throw StorageError(.corrupt, "the archive's password-hash parameters are out of range", tier: .secrets)
        }
        let kdf = KDFParameters(salt: salt, operations: operations, memory: Int(memory))
        // The parameters are the archive maker's choice and nothing is authenticated yet: cap them first.
        try configuration.checkPasswordHashCost(kdf, path: nil)
        let header = Array(bytes[0..<headerSize])
        let nonce = Array(bytes[(headerSize - Sodium.nonceBytes)..<headerSize])
        let key = try KeyProvider.passphrase(passphrase).wrappingKey(kdf: kdf)
        defer { key.wipe() }
        let sealedCount = bytes.count - headerSize
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: sealedCount, alignment: 16)
        defer {
            Sodium.memzero(plaintext)
            plaintext.deallocate()
        }
        let opened = try key.withBytes { key in
            bytes.withUnsafeBytes { all in
                nonce.withUnsafeBytes { nonce in
                    Sodium.open(
                        UnsafeRawBufferPointer(rebasing: all[headerSize...]), additionalData: header, nonce: nonce,
                        key: key, into: plaintext)
                }
            }
        }
        guard opened else {
            throw StorageError(
                .authenticationFailed, "the passphrase does not open this archive, or the archive was damaged",
                tier: .secrets)
        }
        // Parse everything before storing anything, so a malformed archive stores nothing.
        var reader = ItemEnvelope.FieldReader(
            bytes: UnsafeRawBufferPointer(rebasing: plaintext[0..<(sealedCount - Sodium.tagBytes)]))
        guard let count = reader.uint(4) else { throw StorageError(.corrupt, "the archive is empty", tier: .secrets) }
        var entries: [(String, String, String, SecretAccessibility, Secret)] = []
        for _ in 0..<count {
            guard let service = reader.field(), let account = reader.field(), let label = reader.field(),
                let code = reader.uint(1), let accessibility = SecretAccessibility(code: UInt8(code)),
                !accessibility.isThisDeviceOnly, reader.uint64() != nil, let size = reader.uint(4).map(Int.init),
                reader.offset + size <= reader.bytes.count
            else { throw StorageError(.corrupt, "the archive's item list is malformed", tier: .secrets) }
            let value = Secret(
                bytes: UnsafeRawBufferPointer(rebasing: reader.bytes[reader.offset..<(reader.offset + size)]))
            reader.offset += size
            let identity = try ItemIdentity.checked(service: service, account: account)
            try identity.checkAttribute("label", label)
            try configuration.checkValueSize(size, of: identity)
            entries.append((service, account, label, accessibility, value))
        }
        var stored = 0
        for (service, account, label, accessibility, value) in entries {
            if !replacingExisting, try contains(service: service, account: account) { continue }
            try set(value, service: service, account: account, label: label, accessibility: accessibility)
            stored += 1
        }
        return stored
    }
}
