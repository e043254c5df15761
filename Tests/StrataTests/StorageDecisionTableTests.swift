import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// The test list, taken from the selector itself: every rule of the decision table round-trips through
/// the facade, and every ordered pair of tiers is crossed in both directions.
@Suite("Storage: the whole decision table and every tier change")
struct StorageDecisionTableTests {
    let directory: TemporaryDirectory
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage-table")
    }

    /// The deployment contexts the table distinguishes (the SwiftData rule needs iOS 17+).
    static let contexts = [
        DeploymentContext(), DeploymentContext(minimumOS: PlatformVersion(.iOS, 16)),
        DeploymentContext(minimumOS: PlatformVersion(.iOS, 17)),
    ]

    /// Descriptors across every field the rules look at: each kind, sizes around every threshold, the flags, and
    /// content types file-like or not.
    static func descriptors(_ configuration: SelectorConfiguration) -> [DataDescriptor] {
        let sizes = [
            8, configuration.smallStructuredLimit, configuration.smallStructuredLimit + 1,
            configuration.secretSizeLimit + 1, configuration.defaults.valueLimit, configuration.defaults.valueLimit + 1,
        ]
        var all: [DataDescriptor] = []
        for kind in DataKind.allCases {
            for size in sizes {
                for contentType in [nil, "application/pdf", "text/plain"] {
                    for (flat, queried, sensitive) in [
                        (false, false, false), (true, false, false), (false, true, false), (false, false, true),
                    ] {
                        all.append(
                            DataDescriptor(
                                kind: kind, estimatedSize: size, isSensitive: sensitive, contentType: contentType,
                                isFlat: flat, isQueried: queried))
                    }
                }
            }
        }
        return all
    }

    /// For each rule of the selector's table (not a copy of it): a context and descriptor that the selector routes
    /// by that rule; `nil` when none does, which fails the test below and names the rule to cover.
    static func example(of rule: SelectionRule) -> (StorageSelector, DataDescriptor)? {
        for context in contexts {
            var selector = StorageSelector()
            selector.configuration.context = context
            if let descriptor = descriptors(selector.configuration).first(where: {
                selector.select($0).ruleID == rule.id
            }) {
                return (selector, descriptor)
            }
        }
        return nil
    }

    @Test(arguments: StorageSelector().rules.map(\.id))
    func everyRuleOfTheTableRoundTrips(_ ruleID: String) throws {
        let rule = try #require(StorageSelector().rule(withID: ruleID))
        let (selector, descriptor) = try #require(
            Self.example(of: rule), "no descriptor the test tries is routed by rule \(ruleID): add one that is")
        let root = directory.appending(ruleID)
        let storage = try Storage(
            root: root, selector: selector, secretsKey: testSecretsKey)
        // The real size stays small (the estimate alone carries a large preference over the budget).
        let value = Data((0..<min(descriptor.estimatedSize, 8_192)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let key = "table/\(ruleID)"
        let selection = try storage.put(value, for: key, as: descriptor)
        #expect(selection.ruleID == ruleID && selection.tier == rule.tier)
        let location = try #require(try storage.location(of: key))
        #expect(location.tier == rule.tier && location.ruleID == ruleID && location.kind == descriptor.kind)
        #expect(location.size == value.count && location.contentType == descriptor.contentType)
        #expect(try storage.data(for: key) == value)
        #expect(try tiersHolding(key, in: storage) == [rule.tier])
        #expect(try storage.keys(prefix: "table/") == [key])
        // Another process sees the same.
        let other = try Storage(root: root, selector: selector, secretsKey: testSecretsKey)
        #expect(try other.location(of: key)?.ruleID == ruleID)
        #expect(try other.data(for: key) == value)
        #expect(try storage.delete(key))
        #expect(try storage.data(for: key) == nil && !(try storage.contains(key)))
        #expect(try tiersHolding(key, in: storage).isEmpty)
        #expect(try storage.verifyCatalog().isSound)
    }

    /// Every ordered pair of tiers, by `put` both ways: the value moves there and back, each time leaving one
    /// copy, recorded with the rule and kind of the put that moved it, read the same by a second instance (as
    /// another process would), and the catalog agrees with the tiers.
    @Test(arguments: Tier.allCases.flatMap { from in Tier.allCases.filter { $0 != from }.map { (from, $0) } })
    func everyTierChangeGoesBothWays(_ from: Tier, _ to: Tier) throws {
        let root = directory.appending("\(from.rawValue)-\(to.rawValue)")
        let first = try openStorage(root)
        let second = try openStorage(root)
        let key = "pair/value"
        for (round, (storage, tier)) in [(first, from), (second, to), (first, from), (second, to)].enumerated() {
            let value = Data("round \(round) in \(tier.rawValue)".utf8)
            let descriptor = descriptorForTier[tier]!.allowingPlaintext
            let selection = try storage.put(value, for: key, as: descriptor)
            #expect(selection.tier == tier)
            #expect(try tiersHolding(key, in: storage) == [tier], "round \(round)")
            #expect(try storage.data(for: key) == value, "round \(round)")
            let reader = storage === first ? second : first
            #expect(try reader.data(for: key) == value, "round \(round)")
            for reader in [first, second] {
                let location = try #require(try reader.location(of: key))
                #expect(
                    location.tier == tier && location.ruleID == selection.ruleID && location.kind == descriptor.kind)
                #expect(location.size == value.count)
            }
            #expect(try first.keys(prefix: "pair/") == [key])
        }
        #expect(try first.catalog.unsettledKeys().isEmpty)
        let report = try second.verifyCatalog()
        #expect(report.isSound && report.settled.isEmpty, "\(report.lines)")
    }
}
