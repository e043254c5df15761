import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 33 item 11: an older `items.manifest` put back alone no longer brings back the revoked values of the items
/// it holds (its sequence number is below the one `items.anchor` records), and an older `keyring.json` put back
/// after a rotation is named as such.
@Suite("SecretStore: an older manifest put back")
struct SecretManifestRollbackTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    var manifestPath: String { fixture.keyringFolder() + "/" + ItemManifest.fileName }
    var anchorPath: String { fixture.keyringFolder() + "/" + ManifestAnchor.fileName }

    func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
    func write(_ data: Data, _ path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }

    @Test func anOlderManifestPutBackAloneIsRefusedNamingIt() throws {
        let store = try fixture.store()
        try store.set("revoked", service: "api", account: "token")
        try store.set("kept", service: "api", account: "other")
        let old = try read(manifestPath)
        try store.set("current", service: "api", account: "token")
        try write(old, manifestPath)
        // Every reader, in this process and a fresh one, and every writer refuses it.
        for reader in [store, try fixture.store()] {
            let refused = #expect(throws: StorageError.self) { try reader.get(service: "api", account: "token") }
            #expect(refused?.code == .rolledBack)
            #expect(refused?.path == manifestPath)
            #expect(refused?.recovery?.contains(ManifestAnchor.fileName) == true)
            #expect(throws: StorageError.self) { try reader.get(service: "api", account: "other") }
            #expect(throws: StorageError.self) { try reader.items() }
            #expect(throws: StorageError.self) { try reader.contains(service: "api", account: "token") }
            let write = #expect(throws: StorageError.self) { try reader.set("x", service: "api", account: "new") }
            #expect(write?.code == .rolledBack)
        }
        // The check without a key reports it too.
        #expect(try fixture.store().structuralProblems().contains { $0.contains("rolled back") })
        // The current manifest put back reads again; so does the old one once its anchor is removed (the recovery
        // the error gives, for whoever means to keep that copy).
        let current = try read(manifestPath)
        _ = current
        try FileManager.default.removeItem(atPath: anchorPath)
        #expect(try fixture.store().get(service: "api", account: "token")?.stringValue == "revoked")
        try fixture.store().set("after", service: "api", account: "token")
        #expect(try fixture.store().get(service: "api", account: "token")?.stringValue == "after")
        #expect(try fixture.store().structuralProblems().isEmpty)
    }

    /// Each kind of write advances the anchor once its manifest is durable: a set of a small item, a batch, a
    /// delete, a move out to a file and back, a change of key and a rotation. The manifest before each, put back,
    /// is refused; the current one reads.
    @Test func everyWriteOfTheManifestMovesTheAnchor() throws {
        let store = try fixture.store()
        try store.set("first", service: "s", account: "a")
        let writes: [(String, () throws -> Void)] = [
            ("set", { try store.set("second", service: "s", account: "a") }),
            ("batch", { try store.set([SecretWrite(Secret("third"), service: "s", account: "a")]) }),
            ("delete", { try store.delete(service: "s", account: "a") }),
            ("inline again", { try store.set("fourth", service: "s", account: "a") }),
            ("to a file", { try store.set(String(repeating: "x", count: 4096), service: "s", account: "a") }),
            ("back inline", { try store.set("fifth", service: "s", account: "a") }),
            ("change key", { try store.changeKey(to: testKey) }),
            ("rotate", { _ = try store.rotate(with: testKey) }),
        ]
        for (name, write) in writes {
            let before = try read(manifestPath)
            try write()
            let after = try read(manifestPath)
            try self.write(before, manifestPath)
            let refused = #expect(throws: StorageError.self, "\(name)") {
                try fixture.store().get(service: "s", account: "a")
            }
            #expect(refused?.code == .rolledBack, "\(name): \(refused?.message ?? "")")
            try self.write(after, manifestPath)
            #expect(throws: Never.self, "\(name)") { try fixture.store().get(service: "s", account: "a") }
        }
    }

    /// A keyring written by an earlier version has a version 2 manifest and no anchor: it reads, and its first
    /// write makes both.
    @Test func aKeyringWithoutAnAnchorReadsAndGetsOneOnItsFirstWrite() throws {
        let store = try fixture.store()
        try store.set("v", service: "s", account: "a")
        try FileManager.default.removeItem(atPath: anchorPath)
        #expect(try fixture.store().get(service: "s", account: "a")?.stringValue == "v")
        try fixture.store().set("w", service: "s", account: "a")
        #expect(FileManager.default.fileExists(atPath: anchorPath))
        #expect(try fixture.store().get(service: "s", account: "a")?.stringValue == "w")
    }

    /// A damaged anchor vouches for nothing, and refuses nothing: an anchor is not data.
    @Test func aDamagedOrForeignAnchorIsIgnored() throws {
        let store = try fixture.store()
        try store.set("v", service: "s", account: "a")
        var damaged = try read(anchorPath)
        damaged[damaged.count - 9] ^= 0xFF  // The sequence number, past its checksum.
        try write(damaged, anchorPath)
        #expect(try fixture.store().get(service: "s", account: "a")?.stringValue == "v")
        let foreign = ManifestAnchor(sequence: .max).serialized(keyringID: Array(repeating: 7, count: 16))
        try write(foreign, anchorPath)
        #expect(try fixture.store().get(service: "s", account: "a")?.stringValue == "v")
    }
}
