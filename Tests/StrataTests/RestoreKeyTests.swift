import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// Restoring exactly one key of a capture into an existing store (`restore(key:from:secretsKey:)`): only that key,
/// matched by its exact scalars, into the tier the capture's catalog names, and `.notFound` for a key the capture
/// lacks.
@Suite("Storage: restore of one key")
struct RestoreKeyTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-restore-key")
    }

    /// A store holding `a`, `ab` and `abc` in every tier (`<tier>/a`, …) and a precomposed `café`, captured; then
    /// every value changed.
    func capturedThenChanged() throws -> (Storage, FolderCapture) {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            for key in ["a", "ab", "abc"] {
                try storage.put(Data("captured \(tier)/\(key)".utf8), for: "\(tier)/\(key)", as: descriptor)
            }
        }
        try storage.put(Data("captured café".utf8), for: "caf\u{E9}", as: descriptorForTier[.records]!)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        for (tier, descriptor) in descriptorForTier {
            for key in ["a", "ab", "abc"] {
                try storage.put(Data("changed \(tier)/\(key)".utf8), for: "\(tier)/\(key)", as: descriptor)
            }
        }
        return (storage, capture)
    }

    /// In every tier, `a` comes back and neither `ab` nor `abc` does.
    @Test(arguments: Tier.allCases)
    func restoresExactlyTheKeyNotTheKeysItPrefixes(tier: Tier) throws {
        let (storage, capture) = try capturedThenChanged()
        try storage.restore(key: "\(tier)/a", from: capture, secretsKey: testSecretsKey)
        #expect(try storage.data(for: "\(tier)/a") == Data("captured \(tier)/a".utf8))
        #expect(try storage.location(of: "\(tier)/a")?.tier == tier)
        #expect(try storage.data(for: "\(tier)/ab") == Data("changed \(tier)/ab".utf8))
        #expect(try storage.data(for: "\(tier)/abc") == Data("changed \(tier)/abc".utf8))
        #expect(try storage.verifyCatalog().isSound)
    }

    /// A key the store now keeps in another tier goes back to the captured tier, and the other copy is removed.
    @Test func movesTheKeyBackToTheCapturedTier() throws {
        let (storage, capture) = try capturedThenChanged()
        try storage.put(Data("now a file".utf8), for: "records/a", as: descriptorForTier[.files]!)
        #expect(try tiersHolding("records/a", in: storage) == [.files])
        try storage.restore(key: "records/a", from: capture, secretsKey: testSecretsKey)
        #expect(try tiersHolding("records/a", in: storage) == [.records])
        #expect(try storage.data(for: "records/a") == Data("captured records/a".utf8))
    }

    /// A key whose move was interrupted after its copy and before its commit (the catalog says defaults, moving to
    /// secrets, and secrets holds a copy) is settled before the restore writes it: no move of the key is pending
    /// after the restore, and the restored value is what stays, in the captured tier.
    @Test func aMoveInterruptedBeforeTheRestoreIsSettledFirst() throws {
        let storage = try openStorage(root)
        try storage.put(Data("captured".utf8), for: "k", as: descriptorForTier[.defaults]!)
        let inDefaults = try #require(try storage.location(of: "k"))
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        try storage.put(Data("stale".utf8), for: "k", as: descriptorForTier[.secrets]!)
        try storage.catalog.record([.set(inDefaults), .intent(key: "k", from: .defaults, to: .secrets)], durable: true)

        try storage.restore(key: "k", from: capture, secretsKey: testSecretsKey)
        #expect(try storage.catalog.intent(for: "k") == nil, "the restore left the move pending")
        let report = try storage.verifyCatalog()
        #expect(report.settled == [SettledMove(key: "k", from: .defaults, to: .secrets, outcome: .undone)])
        #expect(report.isSound, "\(report.lines)")
        #expect(try storage.data(for: "k") == Data("captured".utf8))
        #expect(try tiersHolding("k", in: storage) == [.defaults])
    }

    /// A key the capture lacks — one never stored, a prefix of stored keys, a canonically equivalent spelling of a
    /// stored key — is `.notFound` naming it, and nothing in the store changes.
    @Test(arguments: ["nope", "records/", "cafe\u{301}"])
    func aKeyTheCaptureLacksIsNotFound(key: String) throws {
        let (storage, capture) = try capturedThenChanged()
        let error = #expect(throws: StorageError.self) {
            try storage.restore(key: key, from: capture, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .notFound && error?.key == key)
        for tier in Tier.allCases {
            #expect(try storage.data(for: "\(tier)/a") == Data("changed \(tier)/a".utf8))
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    /// The exact spelling restores.
    @Test func theExactScalarsRestore() throws {
        let (storage, capture) = try capturedThenChanged()
        try storage.put(Data("changed café".utf8), for: "caf\u{E9}", as: descriptorForTier[.records]!)
        try storage.restore(key: "caf\u{E9}", from: capture, secretsKey: testSecretsKey)
        #expect(try storage.data(for: "caf\u{E9}") == Data("captured café".utf8))
    }

    /// A key written through its tier's own API (the catalog does not record it; the store's reads find it in the
    /// tier) is in the capture, and restores by key and by prefix into that tier, as the store's own reads see it.
    @Test(arguments: Tier.allCases)
    func aKeyWrittenThroughItsTiersOwnAPIRestores(tier: Tier) throws {
        let storage = try openStorage(root)
        let key = "direct/\(tier)"
        try storage.backend(for: tier).put(Data("captured direct".utf8), for: key)
        try storage.backend(for: tier).flush()
        #expect(try storage.catalog.location(of: key) == nil)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        try storage.put(Data("changed direct".utf8), for: key, as: descriptorForTier[tier]!)
        try storage.restore(key: key, from: capture, secretsKey: testSecretsKey)
        #expect(try storage.data(for: key) == Data("captured direct".utf8))
        #expect(try tiersHolding(key, in: storage) == [tier])

        try storage.put(Data("changed again".utf8), for: key, as: descriptorForTier[tier]!)
        #expect(
            try storage.restore(keysWithPrefix: "direct/", from: capture, secretsKey: testSecretsKey) == [key])
        #expect(try storage.data(for: key) == Data("captured direct".utf8))
        #expect(try storage.verifyCatalog().isSound)
    }
}
