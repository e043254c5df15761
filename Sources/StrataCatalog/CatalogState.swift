import Foundation
import StrataCore
import StrataSystem

/// One process's copy of the catalog: every entry and pending intent, and how far into the log it has read.
/// Guarded by ``StorageCatalog``'s mutex.
struct CatalogState: ~Copyable {
    var entries = CatalogTable()
    var intents: [ExactString: CatalogIntent] = [:]
    /// Kept across reloads: entries made before a reload still point into it.
    var strings = CatalogStrings()
    /// The open log, or -1.
    var fd = FileDescriptor(rawValue: -1)
    /// The log file's identity, to notice when a compaction replaced it.
    var device: UInt64 = 0
    var inode: UInt64 = 0
    /// The end of the last whole record read (or written) by this process.
    var offset = 0
    /// The change counter's value when this process last caught up.
    var seen: UInt64 = .max

    /// About how many bytes a compacted log describing the current state would take.
    var liveBytesEstimate: Int { StorageCatalog.headerSize + (entries.count + intents.count) * 64 }

    deinit { if fd.rawValue >= 0 { fd.close() } }

    mutating func apply(_ record: CatalogRecord) {
        switch record {
        case .set(let key, let entry):
            entries.set(key, entry)
        case .remove(let key):
            entries.remove(key)
        case .intent(let key, let from, let to):
            intents[ExactString(key)] = CatalogIntent(key: key, from: from, to: to)
        case .settle(let key):
            intents.removeValue(forKey: ExactString(key))
        }
    }

    /// Applies records read from the log, in order. The index cells of the whole batch are prefetched first, so
    /// loading a large log waits for memory once a batch rather than once a record.
    mutating func apply(_ batch: [CatalogRecord.Borrowed], hashes: inout [UInt64]) {
        hashes.removeAll(keepingCapacity: true)
        for record in batch {
            let hash = CatalogTable.hash(record.key)
            hashes.append(hash)
            entries.prefetch(hash: hash)
        }
        for (record, hash) in zip(batch, hashes) {
            switch record {
            case .set(let key, let entry):
                entries.set(key, hash: hash, entry)
            case .remove(let key):
                entries.remove(key, hash: hash)
            case .intent, .settle:
                apply(record.owned)  // Rare: moves only.
            }
        }
    }

    func location(of key: String) -> StorageLocation? {
        entries[key].map { location(key: key, entry: $0) }
    }

    /// The location `entry` describes for `key`, its strings read from the table.
    func location(key: String, entry: CatalogEntry) -> StorageLocation {
        StorageLocation(
            key: key, tier: entry.tier, backend: strings[entry.backend], ruleID: strings[entry.rule], kind: entry.kind,
            contentType: strings.optional(entry.contentType), size: Int(entry.size),
            modified: Date(timeIntervalSince1970: entry.modified))
    }
}
