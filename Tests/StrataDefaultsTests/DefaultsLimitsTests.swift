import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// The defaults tier's limits and name checks as the facade relies on them: a value is measured without its
/// key, so a preference within ``DefaultsLimits/valueLimit`` is accepted whatever its key; allowed names are
/// matched by exact scalars; the one ``Durability`` type drives when sets reach the disk.
@Suite("Defaults: limits, allowed names, durability")
struct DefaultsLimitsTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// A value of exactly the limit was refused under a long key: the key counted against the value.
    @Test(arguments: [1, 200, 800])
    func aValueOfExactlyTheLimitIsAcceptedWhateverItsKey(keyLength: Int) throws {
        let store = try DefaultsStore(
            suite: "limits", root: fixture.root,
            configuration: DefaultsConfiguration(valueLimit: 1000, watchesExternalChanges: false))
        // Components of at most 200 bytes (a component's limit is 255).
        let key = stride(from: 0, to: keyLength, by: 201).map {
            String(repeating: "k", count: min(200, keyLength - $0))
        }
        .joined(separator: "/")
        try store.put(Data(repeating: 1, count: 1000), for: key)
        try store.set(.string(String(repeating: "s", count: 1000)), forKey: key + "s")
        #expect(try store.data(for: key)?.count == 1000)
        let over = #expect(throws: StorageError.self) { try store.put(Data(repeating: 1, count: 1001), for: key) }
        #expect(over?.code == .tooLarge)
        #expect(over?.suggestedTier == .files)
    }

    /// The allow list holds names by their exact scalars: a canonically equivalent spelling of an allowed
    /// name is another key (as everywhere in Strata), and is checked like any other.
    @Test func allowedNamesAreMatchedByExactScalars() throws {
        let composed = "cach\u{E9}Token"
        let decomposed = "cache\u{301}Token"
        let store = try DefaultsStore(
            suite: "allowed", root: fixture.root,
            configuration: DefaultsConfiguration(allowedSensitiveKeys: [composed], watchesExternalChanges: false))
        try store.set(.bool(true), forKey: composed)
        let refused = #expect(throws: StorageError.self) { try store.set(.bool(true), forKey: decomposed) }
        #expect(refused?.code == .sensitiveKey)
        #expect(refused?.recovery?.contains("allowsSensitiveName") == true)
    }

    /// The descriptor's permission reaches the tier through the byte-level `put(_:for:as:)`.
    @Test func theDescriptorAllowsANameThroughTheBackendContract() throws {
        let store = try fixture.store()
        let backend: any StorageBackend = store
        #expect(throws: StorageError.self) { try backend.put(Data([1]), for: "showPasswordHint") }
        try backend.put(
            Data([1]), for: "showPasswordHint",
            as: DataDescriptor(kind: .preference, estimatedSize: 1, allowsSensitiveName: true))
        #expect(try backend.data(for: "showPasswordHint") == Data([1]))
    }

    /// `.durable` and `.atomicOnly` write before `set` returns; `.coalesced` later; the backend reports which.
    @Test(arguments: [Durability.durable, .atomicOnly, .coalesced(.seconds(30))])
    func durabilityDecidesWhenASetReachesTheFile(_ durability: Durability) throws {
        let store = try fixture.store(durability: durability)
        try store.set(.bool(true), forKey: "flag")
        let written = FileManager.default.fileExists(atPath: fixture.suitePath())
        #expect(written == (durability != .coalesced(.seconds(30))))
        #expect(store.durability == durability)
        #expect(!store.layout.isEmpty)
        #expect(store.layout.first?.location == fixture.suitePath())
    }
}
