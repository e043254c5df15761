import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 33 item 12: a rotation stopped by a full disk left every later unlock trying to finish it, and failing
/// with `no-space`: no item could be read until space was freed. Reads now keep working from the last consistent
/// state (every item under one of the two keys, both reachable), and the rotation finishes once writes succeed.
@Suite("SecretStore: a rotation stopped by a full disk", .serialized)
struct SecretRotationFullDiskTests {
    static let small = 5
    static let large = 3

    func value(_ index: Int) -> String {
        index < Self.small ? "small-\(index)" : "large-\(index)-" + String(repeating: "x", count: 4096)
    }

    /// The disk fills up at the `skip`-th write of the rotation (the rotation record, the three item files, the
    /// manifest, its anchor, the keyring file) and stays full.
    @Test(arguments: 0..<7)
    func readsWorkWhileTheDiskIsFullAndTheRotationFinishesAfter(_ skip: Int) throws {
        let fixture = try SecretsFixture()
        defer { FaultInjector.shared.reset() }
        let store = try fixture.store()
        for index in 0..<(Self.small + Self.large) {
            try store.set(value(index), service: "s", account: "\(index)")
        }
        FaultInjector.shared.inject(
            .error(ENOSPC), on: .write, pathContaining: fixture.keyringFolder(), after: skip, times: 1_000_000)
        var stopped = false
        do {
            _ = try store.rotate(with: testKey)
        } catch let error as StorageError {
            #expect(error.code == .noSpace, "\(skip): \(error)")
            stopped = true
        }
        // Still full: the rotating store, a new one (its unlock cannot finish the rotation), and a listing read
        // every item.
        let reopened = try SecretStore(paths: fixture.paths, configuration: fastPasswords)
        #expect(throws: Never.self, "\(skip)") { try reopened.unlock(with: testKey, createIfMissing: false) }
        for reader in [store, reopened] {
            for index in 0..<(Self.small + Self.large) {
                #expect(
                    try reader.get(service: "s", account: "\(index)")?.stringValue == value(index),
                    "\(skip) item \(index)")
            }
            #expect(try reader.items(service: "s").count == Self.small + Self.large, "\(skip)")
        }
        let full = #expect(throws: StorageError.self, "\(skip): writes wait for space") {
            try reopened.set("new", service: "s", account: "new")
        }
        #expect(full?.code == .noSpace)
        FaultInjector.shared.reset()
        // Space again: the next unlock finishes the rotation; every item reads, under the one new key.
        let after = try fixture.store()
        #expect(!FileManager.default.fileExists(atPath: fixture.keyringFolder() + "/" + RotationFile.fileName))
        for reader in [after, try fixture.store()] {
            for index in 0..<(Self.small + Self.large) {
                #expect(try reader.get(service: "s", account: "\(index)")?.stringValue == value(index), "\(skip)")
            }
        }
        try after.set("new", service: "s", account: "new")
        #expect(try fixture.store().get(service: "s", account: "new")?.stringValue == "new")
        #expect(stopped, "\(skip): the rotation wrote more files than expected")
    }
}
