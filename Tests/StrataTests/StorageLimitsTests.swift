import Foundation
import Strata
import StrataTestSupport
import Testing

/// The selector and the defaults tier share one set of limits: a preference the selector sends to defaults is
/// never refused there for its size, and a full suite sends the next preference to files by a named rule.
@Suite("Storage: the selector and the tiers agree on limits")
struct StorageLimitsTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-limits")
    }

    /// A 100 KiB preference was sent to defaults (1 MiB budget) and refused there (64 KiB per value).
    @Test func aPreferenceOverTheDefaultsValueLimitGoesToFiles() throws {
        let storage = try openStorage(root)
        let value = Data(repeating: 0x61, count: 100 << 10)
        let selection = try storage.put(
            value, for: "cachedFeed", as: DataDescriptor(kind: .preference, estimatedSize: 10))
        #expect(selection.tier == .files)
        #expect(selection.ruleID == "large-preference-to-files")
        #expect(selection.reason.contains("64 KiB"), "\(selection.reason)")
        #expect(try storage.data(for: "cachedFeed") == value)
        #expect(try storage.location(of: "cachedFeed")?.tier == .files)
    }

    /// Twenty 60 KiB preferences: the 18th no longer fits the 1 MiB suite. It and the rest go to files by the
    /// rule `preference-to-files-suite-full`, whose reason says why; nothing is refused, everything reads back.
    @Test func preferencesPastTheSuiteBudgetGoToFilesByANamedRule() throws {
        let storage = try openStorage(root)
        var rules: [String] = []
        for index in 0..<20 {
            let value = Data(repeating: UInt8(index), count: 60 << 10)
            let selection = try storage.put(
                value, for: "chunk\(index)", as: DataDescriptor(kind: .preference, estimatedSize: value.count))
            rules.append(selection.ruleID)
            if selection.ruleID == SelectionRule.suiteFull.id {
                #expect(selection.tier == .files)
                #expect(selection.reason.contains("suite is full"), "\(selection.reason)")
                #expect(selection.reason.contains("1 MiB"), "\(selection.reason)")
                #expect(selection.backend == "filesystem")
            }
        }
        let inDefaults = rules.prefix { $0 == "preference-to-defaults" }.count
        #expect(inDefaults >= 16 && inDefaults < 20, "\(rules)")
        #expect(rules.dropFirst(inDefaults).allSatisfy { $0 == SelectionRule.suiteFull.id }, "\(rules)")
        for index in 0..<20 {
            #expect(try storage.data(for: "chunk\(index)") == Data(repeating: UInt8(index), count: 60 << 10))
            #expect(try tiersHolding("chunk\(index)", in: storage).count == 1)
        }
        #expect(try storage.location(of: "chunk19")?.ruleID == SelectionRule.suiteFull.id)
        // Room made in the suite: the next put of a key that went to files moves it back to defaults.
        for index in 0..<4 { try storage.delete("chunk\(index)") }
        let back = try storage.put(
            Data(repeating: 19, count: 60 << 10), for: "chunk19",
            as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(back.tier == .defaults)
        #expect(try tiersHolding("chunk19", in: storage) == [.defaults])
    }

    /// The whole class: around the value limit, with long keys (which the tier once counted in the value), and
    /// with limits changed through the selector, every preference is stored and read back; the selector's
    /// threshold is the tier's limit exactly.
    @Test(arguments: [64 << 10, 1000])
    func everyPreferenceTheSelectorSendsToDefaultsIsAccepted(valueLimit: Int) throws {
        let limits = DefaultsLimits(valueLimit: valueLimit, suiteBudget: 1 << 20)
        let storage = try Storage(
            root: root, selector: StorageSelector(configuration: SelectorConfiguration(defaults: limits)),
            secretsKey: testSecretsKey)
        let defaults = try #require(try storage.backend(for: .defaults) as? DefaultsStore)
        #expect(defaults.configuration.limits == limits, "the tier opened with the selector's limits")
        let longKey = "prefs/" + String(repeating: "k", count: 200) + "/" + String(repeating: "k", count: 200) + "/"
        for size in [valueLimit - 1, valueLimit, valueLimit + 1] {
            let key = longKey + "\(size)"
            let value = Data(repeating: 0x42, count: size)
            let selection = try storage.put(value, for: key, as: DataDescriptor(kind: .preference, estimatedSize: 1))
            #expect(selection.tier == (size <= valueLimit ? .defaults : .files), "\(size): \(selection)")
            #expect(try storage.data(for: key) == value)
        }
    }

    /// A defaults backend of the app's own with a smaller limit than the selector's: its size refusal is not
    /// passed on to the caller either; the value goes to files by the named rule.
    @Test func aCustomDefaultsBackendsSizeRefusalFallsBackToFiles() throws {
        let storage = try openStorage(root)
        storage.registry.register(.defaults, name: "memory") { _ in InMemoryBackend(tier: .defaults, valueLimit: 100) }
        let value = Data(repeating: 7, count: 200)
        let selection = try storage.put(value, for: "note", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(selection.tier == .files)
        #expect(selection.ruleID == SelectionRule.suiteFull.id)
        #expect(try storage.data(for: "note") == value)
        #expect(
            try storage.put(Data([1]), for: "small", as: DataDescriptor(kind: .preference, estimatedSize: 1)).tier
                == .defaults)
    }

    /// A flat structured value between the defaults value limit and a larger small-structured limit goes to
    /// records (the smaller limit applies), not to defaults that would refuse it.
    @Test func aFlatValueOverTheDefaultsValueLimitGoesToRecords() throws {
        var configuration = SelectorConfiguration(defaults: DefaultsLimits(valueLimit: 1000))
        configuration.smallStructuredLimit = 4000
        let storage = try Storage(
            root: root, selector: StorageSelector(configuration: configuration),
            secretsKey: testSecretsKey)
        let value = Data(repeating: 0x7B, count: 2000)
        let selection = try storage.put(
            value, for: "layout", as: DataDescriptor(kind: .structured, estimatedSize: 2000, isFlat: true))
        #expect(selection.tier == .records)
        #expect(try storage.data(for: "layout") == value)
    }
}
