import Foundation
import StrataCore
import Synchronization

extension SecretStore {
    /// Stores many secrets at once: under one hold of the keyring's lock, with one update of the item manifest for
    /// the whole batch, which holds the small items themselves (see ``SecretsConfiguration/inlineItemLimit``); the
    /// others get files, with one flush of the new files to disk and one `fsync` of the folder for them all.
    ///
    /// Each item is replaced atomically, as by ``set(_:service:account:label:accessibility:)-(Secret,_,_,_,_)``; the batch as a
    /// whole is not: a crash (or a power loss) in the middle leaves every item of it either with its old value or
    /// its new one — never torn, never missing, never reported rolled back — but some may be new and others old.
    /// Everything is checked before anything is written, so a bad item (an empty or oversized attribute, a value
    /// over the limit, an item named twice) fails the batch with nothing changed. The items are sealed on every
    /// core before the first file is written, so a batch holds its sealed files (each about its value's size) in
    /// memory until they are on disk.
    ///
    /// ```swift
    /// try store.set(tokens.map { SecretWrite(Secret($0.value), service: "api.example.com", account: $0.user) })
    /// ```
    /// - Parameter writes: The items, each named once.
    /// - Throws: ``/StrataCore/StorageError``: what ``set(_:service:account:label:accessibility:)-(Secret,_,_,_,_)`` throws for an item (with
    ///   its `key`; nothing is written then), `.invalidArgument` for an item named twice, or a write error (items
    ///   renamed into place before it keep their new value, the others their old one).
    public func set(_ writes: [SecretWrite]) throws {
        guard !writes.isEmpty else { return }
        var seen = Set<ItemIdentity>()
        var items: [(write: SecretWrite, identity: ItemIdentity, fileName: String, keyringID: [UInt8])] = []
        items.reserveCapacity(writes.count)
        for write in writes {
            let identity = try ItemIdentity.checked(service: write.service, account: write.account)
            if let label = write.label { try identity.checkAttribute("label", label) }
            try configuration.checkValueSize(write.value.count, of: identity)
            guard seen.insert(identity).inserted else {
                throw StorageError(
                    .invalidArgument, "the batch sets the same item twice", tier: .secrets,
                    key: identity.displayKey, recovery: "Set each item once per batch")
            }
            let keyringID = try classKey(write.accessibility, writing: true).0
            items.append((write, identity, try fileName(identity), keyringID))
        }
        let folder = try keyringFolder()
        let lock = keyringLock(in: folder)
        // Exclusive, as for one item: the manifest is read, changed and written back after the items.
        try reportingChange(setting: items.map(\.identity)) {
            try lock.withLock(.exclusive, timeout: configuration.lockTimeout) {
                let now = Date()
                // Sealed under the key the manifest is tagged under (see ``store(_:identity:label:replacing:...)``).
                let (manifest, owner) = try currentManifest(in: folder)
                // Sealed first, on every core: each item is read (for its creation date and label) and sealed on its
                // own, and only the files' creation, which the folder serializes, is left to the write below.
                let sealed = try Self.concurrently(items.count) { [items] index in
                    let item = items[index]
                    // Keep the creation date (and label) of an item being replaced, when its attributes can be read.
                    let existing = try? locate(item.identity, in: folder, value: false, manifest: manifest)
                    let record = newRecord(
                        item.identity, size: item.write.value.count, label: item.write.label,
                        replacing: existing?.record, fileName: item.fileName, in: manifest, now: now)
                    let file = try sealedFile(
                        item.write.value, as: record, accessibility: item.write.accessibility,
                        keyringID: item.keyringID,
                        key: sealingKey(item.write.accessibility, of: owner), fileName: item.fileName)
                    return (
                        item.fileName, file, record.modified,
                        existing.flatMap { $0.fileName != item.fileName ? $0.fileName : nil },
                        !item.write.accessibility.isThisDeviceOnly
                    )
                }
                try writeItems(sealed, in: folder, manifest: manifest, owner: owner, now: now)
            }
        }
    }

    /// Fewer items than this are sealed on the calling thread alone: splitting them costs more than it saves.
    static let concurrentSealingMinimum = 16

    /// `body(0)` … `body(count - 1)`, split over the machine's cores in contiguous runs (on the calling thread
    /// alone below ``concurrentSealingMinimum``), in order in the result.
    /// - Throws: What `body` threw for the lowest index that threw.
    static func concurrently<Result: Sendable>(_ count: Int, _ body: @Sendable (Int) throws -> Result) throws
        -> [Result]
    {
        let runs = count < concurrentSealingMinimum ? 1 : min(ProcessInfo.processInfo.activeProcessorCount, 8)
        guard runs > 1 else { return try (0..<count).map(body) }
        let results = Mutex<[Result?]>(Array(repeating: nil, count: count))
        let failure = Mutex<(index: Int, error: any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: runs) { run in
            for index in (count * run / runs)..<(count * (run + 1) / runs) {
                do {
                    let result = try body(index)
                    results.withLock { $0[index] = result }
                } catch {
                    failure.withLock { if $0 == nil || index < $0!.index { $0 = (index, error) } }
                    return
                }
            }
        }
        if let failure = failure.withLock({ $0 }) { throw failure.error }
        return results.withLock { $0 }.map { $0! }
    }
}
