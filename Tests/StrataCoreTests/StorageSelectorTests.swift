import StrataCore
import Testing

@Suite("StorageSelector: the decision table")
struct StorageSelectorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var descriptor: DataDescriptor
        var context = DeploymentContext()
        var tier: Tier
        var rule: String
        var apple: String
        var testDescription: String { name }
    }

    static let swiftData = DeploymentContext(minimumOS: PlatformVersion(.iOS, 17))
    static let coreData = DeploymentContext(minimumOS: PlatformVersion(.iOS, 16, 4))

    /// One case (at least) per rule of the table, in the table's order.
    static let cases: [Case] = [
        Case(
            name: "credential goes to secrets", descriptor: DataDescriptor(kind: .credential, estimatedSize: 40),
            tier: .secrets, rule: "sensitive-to-secrets", apple: "Keychain"),
        Case(
            name: "a sensitive preference never goes to defaults",
            descriptor: DataDescriptor(kind: .preference, estimatedSize: 12, isSensitive: true),
            tier: .secrets, rule: "sensitive-to-secrets", apple: "Keychain"),
        Case(
            name: "a large credential still goes to secrets",
            descriptor: DataDescriptor(kind: .credential, estimatedSize: 5 << 20),
            tier: .secrets, rule: "sensitive-to-secrets", apple: "Keychain"),
        Case(
            name: "a PDF goes to files",
            descriptor: DataDescriptor(kind: .file, estimatedSize: 2_000_000, contentType: "application/pdf"),
            tier: .files, rule: "file-to-files", apple: "FileManager"),
        Case(
            name: "an audio recording goes to files",
            descriptor: DataDescriptor(kind: .file, estimatedSize: 300, contentType: "audio/wav"),
            tier: .files, rule: "file-to-files", apple: "FileManager"),
        Case(
            name: "an image preference goes to files by its content type",
            descriptor: DataDescriptor(kind: .preference, estimatedSize: 2_000, contentType: "image/png"),
            tier: .files, rule: "file-to-files", apple: "FileManager"),
        Case(
            name: "a preference over the defaults value limit goes to files",
            descriptor: DataDescriptor(kind: .preference, estimatedSize: (64 << 10) + 1),
            tier: .files, rule: "large-preference-to-files", apple: "FileManager"),
        Case(
            name: "a small preference goes to defaults",
            descriptor: DataDescriptor(kind: .preference, estimatedSize: 8),
            tier: .defaults, rule: "preference-to-defaults", apple: "UserDefaults"),
        Case(
            name: "a preference exactly at the defaults value limit stays in defaults",
            descriptor: DataDescriptor(kind: .preference, estimatedSize: 64 << 10),
            tier: .defaults, rule: "preference-to-defaults", apple: "UserDefaults"),
        Case(
            name: "flat small structured data goes to defaults",
            descriptor: DataDescriptor(kind: .structured, estimatedSize: 300, isFlat: true),
            tier: .defaults, rule: "flat-structured-to-defaults", apple: "UserDefaults"),
        Case(
            name: "flat but queried structured data goes to records",
            descriptor: DataDescriptor(kind: .structured, estimatedSize: 300, isFlat: true, isQueried: true),
            tier: .records, rule: "structured-to-records-coredata", apple: "CoreData"),
        Case(
            name: "flat but large structured data goes to records",
            descriptor: DataDescriptor(kind: .structured, estimatedSize: 1 << 20, isFlat: true),
            tier: .records, rule: "structured-to-records-coredata", apple: "CoreData"),
        Case(
            name: "structured data on iOS 17 is SwiftData",
            descriptor: DataDescriptor(kind: .structured, estimatedSize: 50_000_000), context: swiftData,
            tier: .records, rule: "structured-to-records-swiftdata", apple: "SwiftData"),
        Case(
            name: "relational data on iOS 16.4 is CoreData",
            descriptor: DataDescriptor(kind: .relational, estimatedSize: 50_000_000), context: coreData,
            tier: .records, rule: "structured-to-records-coredata", apple: "CoreData"),
        Case(
            name: "relational data without a minimum OS is CoreData",
            descriptor: DataDescriptor(kind: .relational, estimatedSize: 10),
            tier: .records, rule: "structured-to-records-coredata", apple: "CoreData"),
        Case(
            name: "relational data on macOS 14 is SwiftData",
            descriptor: DataDescriptor(kind: .relational, estimatedSize: 10),
            context: DeploymentContext(minimumOS: PlatformVersion(.macOS, 14)),
            tier: .records, rule: "structured-to-records-swiftdata", apple: "SwiftData"),
    ]

    @Test(arguments: cases)
    func rule(_ testCase: Case) {
        let selector = StorageSelector(configuration: SelectorConfiguration(context: testCase.context))
        let selection = selector.select(testCase.descriptor)
        #expect(selection.tier == testCase.tier)
        #expect(selection.ruleID == testCase.rule)
        #expect(selection.appleEquivalent == testCase.apple)
        // A bare selector knows no backend: the backend's facts come from `Storage.select`.
        #expect(selection.concurrencyGuarantee.isEmpty && selection.backend == nil && selection.durability == nil)
        #expect(!selection.reason.isEmpty)
    }

    @Test func everyStandardRuleIsCoveredByACase() {
        let covered = Set(Self.cases.map(\.rule))
        #expect(covered == Set(SelectionRule.standard.map(\.id)))
    }

    @Test func sensitiveDataIsNeverSelectedForDefaults() {
        let selector = StorageSelector()
        for kind in DataKind.allCases {
            for size in [0, 10, 1 << 20, 1 << 30] {
                let selection = selector.select(DataDescriptor(kind: kind, estimatedSize: size, isSensitive: true))
                #expect(selection.tier == .secrets, "kind \(kind) size \(size)")
            }
        }
    }

    @Test func overBudgetReasonSaysWhy() {
        let selection = StorageSelector().select(DataDescriptor(kind: .preference, estimatedSize: 3 << 20))
        #expect(selection.reason.contains("3 MiB"))
        #expect(selection.reason.contains("64 KiB a defaults value may take"))
    }

    @Test func thresholdsAreConfigurable() {
        var configuration = SelectorConfiguration()
        configuration.defaults.valueLimit = 1000
        let selector = StorageSelector(configuration: configuration)
        #expect(selector.select(DataDescriptor(kind: .preference, estimatedSize: 1001)).tier == .files)
        #expect(selector.select(DataDescriptor(kind: .preference, estimatedSize: 1000)).tier == .defaults)
    }

    @Test func customRulesComeFirstAndTheTableBacksThemUp() {
        let onlyAudio = SelectionRule(
            id: "audio-to-records", condition: "audio", tier: .records, appleEquivalent: { _ in "CoreData" },
            matches: { descriptor, _ in descriptor.contentType == "audio/wav" }, reason: { _, _ in "test" })
        let selector = StorageSelector(rules: [onlyAudio])
        #expect(
            selector.select(DataDescriptor(kind: .file, estimatedSize: 1, contentType: "audio/wav")).ruleID
                == "audio-to-records")
        #expect(selector.select(DataDescriptor(kind: .credential, estimatedSize: 1)).ruleID == "sensitive-to-secrets")
    }

    @Test func tableListsEveryRuleAndTier() {
        let table = StorageSelector().renderTable()
        for rule in SelectionRule.standard { #expect(table.contains(rule.id)) }
        for apple in ["UserDefaults", "Keychain", "CoreData", "SwiftData", "FileManager"] {
            #expect(table.contains(apple))
        }
        #expect(table.contains("1 MiB"))
    }

    @Test(arguments: [
        ("iOS17", PlatformVersion(.iOS, 17)), ("ios 17.2", PlatformVersion(.iOS, 17, 2)),
        ("macOS14", PlatformVersion(.macOS, 14)), ("visionOS1", PlatformVersion(.visionOS, 1)),
    ])
    func platformVersionParses(_ text: String, _ expected: PlatformVersion) {
        #expect(PlatformVersion(parsing: text) == expected)
    }

    @Test(arguments: ["", "iOS", "android13", "iOS17.x", "iOS-1", "17"])
    func platformVersionRefusesNonsense(_ text: String) {
        #expect(PlatformVersion(parsing: text) == nil)
    }
}
