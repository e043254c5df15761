public import Foundation
public import StrataCore

/// A deterministic mix of writes on a few keys, through `Storage` and through each tier's own API, that a child
/// process runs until it is killed and its parent replays to know what each key must hold: the state after the last
/// acknowledged operation, or after the one in flight.
public enum TierChurn {
    /// What operation number `index` does.
    public enum Operation: Sendable, Hashable {
        /// `Storage.put` with a descriptor that sends the value to `tier` (allowed to take a credential out of secrets).
        case storagePut(Tier)
        /// A write through the tier's own API, in the tier the catalog places the key in (files when it has none).
        case tierPut
        /// A removal through the tier's own API, from the tier that holds the key (nothing when none does).
        case tierDelete
    }

    /// What a key holds: its tier and value, or nothing.
    public struct Holding: Sendable, Hashable {
        public var tier: Tier
        public var value: Data

        public init(tier: Tier, value: Data) {
            self.tier = tier
            self.value = value
        }
    }

    /// The keys the churn writes.
    public static let keys = (0..<4).map { "churn/\($0)" }

    static let tiers: [Tier] = [.defaults, .secrets, .files, .records]

    /// The key of operation `index`.
    public static func key(_ index: Int) -> String { keys[index % keys.count] }

    /// Operation number `index`.
    public static func operation(_ index: Int) -> Operation {
        let round = index / keys.count
        switch round % 5 {
        case 0: return .storagePut(tiers[(round / 5) % tiers.count])
        case 3: return .storagePut(tiers[(round / 5 + 1) % tiers.count])
        case 2: return .tierDelete
        default: return .tierPut
        }
    }

    /// The value operation `index` writes.
    public static func value(_ index: Int) -> Data { Data("churn-\(index)".utf8) }

    /// The descriptor a `Storage.put` to `tier` uses.
    public static func descriptor(for tier: Tier) -> DataDescriptor {
        switch tier {
        case .defaults: DataDescriptor(kind: .preference, estimatedSize: 16, allowsPlaintext: true)
        case .secrets: DataDescriptor(kind: .credential, estimatedSize: 16)
        case .records: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true, allowsPlaintext: true)
        case .files:
            DataDescriptor(kind: .file, estimatedSize: 16, contentType: "application/pdf", allowsPlaintext: true)
        }
    }

    /// What every key holds after operations `0..<count`.
    public static func state(after count: Int) -> [String: Holding] {
        var state: [String: Holding] = [:]
        for index in 0..<max(0, count) {
            let key = key(index)
            switch operation(index) {
            case .storagePut(let tier): state[key] = Holding(tier: tier, value: value(index))
            case .tierPut: state[key] = Holding(tier: state[key]?.tier ?? .files, value: value(index))
            case .tierDelete: state[key] = nil
            }
        }
        return state
    }
}
