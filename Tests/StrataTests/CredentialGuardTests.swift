import Foundation
import Strata
import StrataTestSupport
import Testing

/// A credential never leaves the secrets tier by accident: `put` and `move` refuse to place a key the secrets tier
/// holds, or that was put as a credential, in a tier that stores plaintext, unless told so.
@Suite("Storage: a credential stays in secrets unless told otherwise")
struct CredentialGuardTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-credential-guard") }

    /// Every byte under the root that holds `marker`, by file.
    func leaks(of marker: String) -> [String] {
        filesUnder(root).filter { $0.data.range(of: Data(marker.utf8)) != nil }.map(\.path)
    }

    @Test(arguments: [Tier.defaults, .records, .files])
    func aMoveOutOfSecretsIsRefusedUnlessAllowed(_ tier: Tier) throws {
        let storage = try openStorage(root)
        let token = "TOKEN-\(tier)-5e1a"
        try storage.set(Secret(token), for: "session/rt")
        let error = #expect(throws: StorageError.self) { try storage.move("session/rt", to: tier) }
        #expect(error?.code == .wrongTier && error?.tier == tier && error?.key == "session/rt")
        #expect(error?.suggestedTier == .secrets)
        #expect("\(String(describing: error))".contains("allowingPlaintext: true"))
        #expect(try tiersHolding("session/rt", in: storage) == [.secrets])
        try storage.backend(for: .defaults).flush()
        #expect(leaks(of: token).isEmpty, "\(leaks(of: token))")
        // On purpose: moved, and the sealed copy removed.
        let moved = try storage.move("session/rt", to: tier, allowingPlaintext: true)
        #expect(moved.tier == tier && moved.kind == .credential)
        #expect(try tiersHolding("session/rt", in: storage) == [tier])
        #expect(try storage.data(for: "session/rt") == Data(token.utf8))
        // Still a credential by its catalogued kind: another put that would keep it in plaintext needs saying so.
        let again = #expect(throws: StorageError.self) {
            try storage.put(Data("x".utf8), for: "session/rt", as: descriptorForTier[tier]!)
        }
        #expect(again?.code == .wrongTier)
    }

    @Test(arguments: [Tier.defaults, .records, .files])
    func aPutThatWouldTakeACredentialOutIsRefusedUnlessAllowed(_ tier: Tier) throws {
        let storage = try openStorage(root)
        try storage.put(Data("s3cr3t".utf8), for: "vault/item", as: descriptorForTier[.secrets]!)
        let error = #expect(throws: StorageError.self) {
            try storage.put(Data("plain".utf8), for: "vault/item", as: descriptorForTier[tier]!)
        }
        #expect(error?.code == .wrongTier && error?.suggestedTier == .secrets)
        #expect(try storage.data(for: "vault/item") == Data("s3cr3t".utf8))
        #expect(try tiersHolding("vault/item", in: storage) == [.secrets])
        try storage.put(Data("plain".utf8), for: "vault/item", as: descriptorForTier[tier]!.allowingPlaintext)
        #expect(try tiersHolding("vault/item", in: storage) == [tier])
        #expect(try storage.data(for: "vault/item") == Data("plain".utf8))
    }

    /// A key the secrets tier holds that the catalog does not know (written through the keyring's own API) is a
    /// credential too.
    @Test func anUncataloguedSecretIsACredentialToo() throws {
        let storage = try openStorage(root)
        try storage.secrets.set("raw", service: SecretStore.storageBackendService, account: "direct")
        let error = #expect(throws: StorageError.self) {
            try storage.set("theme", for: "direct")
        }
        #expect(error?.code == .wrongTier)
        #expect(try storage.location(of: "direct")?.tier == .secrets)
    }

    /// Staying in secrets, or going there, needs nothing said.
    @Test func aCredentialThatStaysOrArrivesNeedsNoPermission() throws {
        let storage = try openStorage(root)
        try storage.set(Secret("one"), for: "token")
        try storage.set(Secret("two"), for: "token")
        try storage.set("pref", for: "later")
        try storage.set(Secret("three"), for: "later")
        #expect(try storage.value(Secret.self, for: "token") == Secret("two"))
        #expect(try storage.location(of: "later")?.tier == .secrets)
    }
}
