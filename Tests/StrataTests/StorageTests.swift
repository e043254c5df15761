import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// The 32 bytes of the tests' secrets key.
let testSecretsKeyBytes = Data(repeating: 0x5a, count: 32)

/// The tests' secrets key as `STRATA_SECRETS_KEY` carries it to a child process (in the child's own environment).
let testSecretsKeyHex = Hex.encode(testSecretsKeyBytes)

/// The tests' secrets key in this process: held in memory, never read from the process environment. That
/// environment is one for every test of every suite running in parallel in this process, so a test that set a key
/// there changed the key of every test reading it (`authentication-failed` at random).
let testSecretsKey = KeyProvider.inMemory(Secret(testSecretsKeyBytes))

/// One descriptor per tier, small enough for every tier's limits.
let descriptorForTier: [Tier: DataDescriptor] = [
    .defaults: DataDescriptor(kind: .preference, estimatedSize: 16),
    .secrets: DataDescriptor(kind: .credential, estimatedSize: 16),
    .records: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true),
    .files: DataDescriptor(kind: .file, estimatedSize: 16, contentType: "application/pdf"),
]

extension DataDescriptor {
    /// This descriptor, allowed to replace a credential in a tier that stores plaintext: for tests that move a key
    /// through every tier on purpose.
    var allowingPlaintext: DataDescriptor {
        var copy = self
        copy.allowsPlaintext = true
        return copy
    }
}

/// Opens a store whose secrets tier is unlocked with the test key (``testSecretsKey``).
func openStorage(_ root: String) throws -> Storage {
    try Storage(root: root, secretsKey: testSecretsKey)
}

/// Which tiers hold a value under `key`, asked of each backend directly.
func tiersHolding(_ key: String, in storage: Storage) throws -> [Tier] {
    try Tier.allCases.filter { try storage.backend(for: $0).contains(key) }
}

@Suite("Storage: the catalog and moves between tiers")
struct StorageTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage")
    }

    /// Every rule of the decision table, through `put` and back through the descriptor-free API.
    @Test(arguments: [
        ("sensitive-to-secrets", DataDescriptor(kind: .credential, estimatedSize: 40)),
        ("file-to-files", DataDescriptor(kind: .file, estimatedSize: 2_000, contentType: "application/pdf")),
        ("large-preference-to-files", DataDescriptor(kind: .preference, estimatedSize: (1 << 20) + 1)),
        ("preference-to-defaults", DataDescriptor(kind: .preference, estimatedSize: 8)),
        ("flat-structured-to-defaults", DataDescriptor(kind: .structured, estimatedSize: 300, isFlat: true)),
        ("structured-to-records-swiftdata", DataDescriptor(kind: .structured, estimatedSize: 5_000)),
        ("structured-to-records-coredata", DataDescriptor(kind: .relational, estimatedSize: 5_000)),
    ])
    func everyRuleRoundTrips(_ ruleID: String, _ descriptor: DataDescriptor) throws {
        var selector = StorageSelector()
        selector.configuration.context = DeploymentContext(
            minimumOS: PlatformVersion(.iOS, ruleID.hasSuffix("coredata") ? 16 : 17))
        let storage = try Storage(
            root: root, selector: selector, secretsKey: testSecretsKey)
        let value = Data(repeating: 0x61, count: min(descriptor.estimatedSize, 4096))
        let selection = try storage.put(value, for: "rule/\(ruleID)", as: descriptor)
        #expect(selection.ruleID == ruleID)
        #expect(try storage.data(for: "rule/\(ruleID)") == value)
        let location = try #require(try storage.location(of: "rule/\(ruleID)"))
        #expect(location.tier == selection.tier && location.ruleID == ruleID)
        #expect(location.kind == descriptor.kind && location.size == value.count)
        #expect(location.backend == (try storage.backend(for: selection.tier).name))
        #expect(try tiersHolding("rule/\(ruleID)", in: storage) == [selection.tier])
        #expect(try storage.contains("rule/\(ruleID)"))
        #expect(try storage.delete("rule/\(ruleID)"))
        #expect(try storage.data(for: "rule/\(ruleID)") == nil)
        #expect(try tiersHolding("rule/\(ruleID)", in: storage).isEmpty)
    }

    /// A put that selects another tier moves the value; so does `move(_:to:)`; in both directions, every pair.
    @Test(arguments: Tier.allCases.flatMap { from in Tier.allCases.filter { $0 != from }.map { (from, $0) } })
    func changingTierMovesTheValue(_ from: Tier, _ to: Tier) throws {
        let storage = try openStorage(root)
        let key = "moving/\(from.rawValue.prefix(1))-\(to.rawValue.prefix(1))"
        try storage.put(Data("first".utf8), for: key, as: descriptorForTier[from]!)
        #expect(try tiersHolding(key, in: storage) == [from])
        try storage.put(Data("second".utf8), for: key, as: descriptorForTier[to]!.allowingPlaintext)
        #expect(try tiersHolding(key, in: storage) == [to])
        #expect(try storage.data(for: key) == Data("second".utf8))
        #expect(try storage.location(of: key)?.tier == to)
        let back = try storage.move(key, to: from, allowingPlaintext: true)
        #expect(back.tier == from && back.ruleID == "move")
        #expect(try tiersHolding(key, in: storage) == [from])
        #expect(try storage.data(for: key) == Data("second".utf8))
        #expect(try storage.catalog.unsettledKeys().isEmpty)
        // Another process (a fresh Storage) agrees.
        #expect(try openStorage(root).location(of: key)?.tier == from)
    }

    /// The first finding: a 3 MiB preference with a small estimate goes to files, and is read from there.
    @Test func underEstimatedPreferenceIsReadFromWhereItWent() throws {
        let storage = try openStorage(root)
        let big = Data(repeating: 7, count: 3 << 20)
        let selection = try storage.put(
            big, for: "cache/blob", as: DataDescriptor(kind: .preference, estimatedSize: 10))
        #expect(selection.tier == .files)
        #expect(try storage.data(for: "cache/blob") == big)
        try storage.put(Data("small".utf8), for: "cache/blob", as: DataDescriptor(kind: .preference, estimatedSize: 10))
        #expect(try tiersHolding("cache/blob", in: storage) == [.defaults])
        #expect(try storage.data(for: "cache/blob") == Data("small".utf8))
    }

    /// A credential's catalog entry left without its value (a delete cut short between the tier and the catalog)
    /// guards nothing: the key reads as absent, and a put of another kind makes it anew instead of being refused as
    /// "the key holds a credential". A credential that is there is still refused.
    @Test func aCredentialsEntryWithoutItsValueDoesNotRefuseAPut() throws {
        let storage = try Storage(root: root, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        try storage.put(Data("tok".utf8), for: "api/token", as: descriptorForTier[.secrets]!)
        let refused = #expect(throws: StorageError.self) {
            try storage.put(Data("{}".utf8), for: "api/token", as: descriptorForTier[.records]!)
        }
        #expect(refused?.code == .wrongTier)
        let entry = try #require(try storage.catalog.location(of: "api/token"))
        #expect(try storage.delete("api/token"))
        try storage.catalog.record([.set(entry)], durable: true)  // The entry back, as a delete cut short leaves it.
        #expect(try storage.put(Data("{}".utf8), for: "api/token", as: descriptorForTier[.records]!).tier == .records)
        #expect(try storage.data(for: "api/token") == Data("{}".utf8))
        #expect(try storage.location(of: "api/token")?.tier == .records)
        #expect(try storage.verifyCatalog().isSound)
    }

    /// A preference that becomes a credential leaves no plaintext anywhere under the root.
    @Test func credentialLeavesNoPlaintextBehind() throws {
        let storage = try openStorage(root)
        let markers = ["PLAINTEXT-MARKER-7f3a", "FILE-MARKER-91bc", "RECORD-MARKER-22de"]
        try storage.put(Data(markers[0].utf8), for: "session", as: descriptorForTier[.defaults]!)
        try storage.put(Data(markers[1].utf8), for: "blob", as: descriptorForTier[.files]!)
        // Through the tiers the plaintext is on disk (the defaults suite once it is written).
        try storage.backend(for: .defaults).flush()
        #expect(filesUnder(root).contains { $0.data.range(of: Data(markers[0].utf8)) != nil })
        try storage.put(Data(markers[0].utf8), for: "session", as: descriptorForTier[.secrets]!)
        try storage.put(Data(markers[1].utf8), for: "blob", as: descriptorForTier[.secrets]!)
        #expect(try storage.data(for: "session") == Data(markers[0].utf8))
        #expect(try tiersHolding("session", in: storage) == [.secrets])
        for marker in markers.prefix(2) {
            let leaks = filesUnder(root).filter { $0.data.range(of: Data(marker.utf8)) != nil }.map(\.path)
            #expect(leaks.isEmpty, "\(marker) still on disk in \(leaks)")
        }
    }

    /// Delete removes every copy: the catalogued one and any that something outside Strata wrote.
    @Test func deleteRemovesEveryCopy() throws {
        let storage = try openStorage(root)
        try storage.put(Data("a".utf8), for: "twice", as: descriptorForTier[.defaults]!)
        try OutsideHands.writeFile("twice", Data("stray".utf8), root: root)
        #expect(try storage.delete("twice"))
        #expect(try tiersHolding("twice", in: storage).isEmpty)
        #expect(try storage.data(for: "twice") == nil)
        #expect(!(try storage.delete("twice")))
    }

    /// A key written through a tier's own API is found, recorded, listed and readable without a descriptor.
    @Test func keysWrittenThroughATierAreFound() throws {
        let storage = try openStorage(root)
        try storage.backend(for: .files).put(Data("direct".utf8), for: "notes/direct.txt")
        try storage.put(Data("b".utf8), for: "notes/b", as: descriptorForTier[.records]!)
        try storage.put(Data("a".utf8), for: "notes/a", as: descriptorForTier[.defaults]!)
        try storage.put(Data("elsewhere".utf8), for: "other", as: descriptorForTier[.defaults]!)
        #expect(try storage.keys(prefix: "notes/") == ["notes/a", "notes/b", "notes/direct.txt"])
        #expect(try storage.data(for: "notes/direct.txt") == Data("direct".utf8))
        let found = try #require(try storage.location(of: "notes/direct.txt"))
        #expect(found.tier == .files && found.ruleID == "found" && found.kind == nil)
        // Copies in two tiers that the catalog never recorded are ambiguous: refused, not guessed.
        try storage.backend(for: .defaults).put(Data("x".utf8), for: "ambiguous")
        try storage.backend(for: .records).put(Data("y".utf8), for: "ambiguous")
        let error = #expect(throws: StorageError.self) { try storage.data(for: "ambiguous") }
        #expect(error?.code == .conflict)
    }

    /// Canonically equivalent spellings are two keys through the facade too.
    @Test func exactUnicodeKeys() throws {
        let storage = try openStorage(root)
        try storage.put(Data("nfc".utf8), for: "caf\u{E9}", as: descriptorForTier[.defaults]!)
        try storage.put(Data("nfd".utf8), for: "cafe\u{301}", as: descriptorForTier[.files]!)
        #expect(try storage.data(for: "caf\u{E9}") == Data("nfc".utf8))
        #expect(try storage.data(for: "cafe\u{301}") == Data("nfd".utf8))
        #expect(try storage.location(of: "caf\u{E9}")?.tier == .defaults)
        #expect(try storage.location(of: "cafe\u{301}")?.tier == .files)
    }

    /// The catalog survives reopening, a torn tail, and refuses a log from a newer Strata.
    @Test func catalogLogIsDurableAndChecked() throws {
        do {
            let storage = try openStorage(root)
            for index in 0..<100 {
                try storage.put(Data("\(index)".utf8), for: "k\(index)", as: descriptorForTier[.records]!)
            }
        }
        let log = root + "/catalog/log"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        // A writer that died mid-append leaves part of a frame: dropped, everything before it kept.
        bytes.append(contentsOf: [0x30, 0, 0, 0, 1, 2, 3])
        try bytes.write(to: URL(fileURLWithPath: log))
        let reopened = try openStorage(root)
        #expect(try reopened.catalog.count == 100)
        try reopened.put(Data("after".utf8), for: "k-after", as: descriptorForTier[.records]!)
        #expect(try openStorage(root).catalog.location(of: "k-after")?.tier == .records)
        #expect(try openStorage(root).catalog.count == 101)
        // A newer format version is refused with a typed error, not misread.
        var newer = try Data(contentsOf: URL(fileURLWithPath: log))
        newer[8] = 9
        try newer.write(to: URL(fileURLWithPath: log))
        let error = #expect(throws: StorageError.self) { _ = try StorageCatalog(root: root) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.path == log)
    }

    /// Many puts of the same keys compact the log; the state after compaction is the same.
    @Test func compactionKeepsTheState() throws {
        let storage = try openStorage(root)
        let other = try openStorage(root)
        for round in 0..<120 {
            for key in 0..<100 {
                try storage.put(Data("\(round)".utf8), for: "c\(key)", as: descriptorForTier[.defaults]!)
            }
        }
        let size = try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int ?? 0
        #expect(size < 1 << 20 + 100_000, "the log was never compacted: \(size) bytes")
        #expect(try other.catalog.count == 100)
        #expect(try other.data(for: "c42") == Data("119".utf8))
        #expect(try openStorage(root).catalog.locations().count == 100)
    }
}
