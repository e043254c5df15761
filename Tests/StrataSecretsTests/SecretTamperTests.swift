import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

@Suite("SecretStore: tampering and hostile files")
struct SecretTamperTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test(arguments: SecretAccessibility.allCases)
    func everyByteFlipOfAnItemIsRefused(_ accessibility: SecretAccessibility) throws {
        let store = try fixture.fileStore()
        try store.set("the real value", service: "svc", account: "acct", accessibility: accessibility)
        let path = try #require(try fixture.itemFiles().first)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in 0..<original.count {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = original
                damaged[index] ^= mask
                try damaged.write(to: URL(fileURLWithPath: path))
                do {
                    let value = try store.get(service: "svc", account: "acct")
                    Issue.record("byte \(index) ^ \(mask) was accepted, giving \(value?.stringValue ?? "nil")")
                } catch let error as StorageError {
                    #expect(
                        [.corrupt, .unsupportedVersion, .deviceMismatch].contains(error.code), "byte \(index): \(error)"
                    )
                    #expect(error.path == path)
                }
            }
        }
        // Truncations, too.
        for length in [0, 5, 33, original.count - 1] {
            try original.prefix(length).write(to: URL(fileURLWithPath: path))
            #expect(throws: StorageError.self) { try store.get(service: "svc", account: "acct") }
        }
        try original.write(to: URL(fileURLWithPath: path))
        #expect(try store.get(service: "svc", account: "acct")?.stringValue == "the real value")
    }

    /// Found by the sealed-item fuzz target: `open` read a length field before checking the file was long
    /// enough, when called without `header(of:)` first.
    @Test func openRefusesShortInputOnItsOwn() throws {
        let key = try GuardedKey(copying: Array(repeating: 7, count: 32))
        for length in [0, 1, 9, 10, 30, 89] {
            #expect(throws: StorageError.self) {
                try ItemEnvelope.open(
                    Data(count: length), accessibility: .whenUnlocked, version: 1,
                    keyringID: [UInt8](repeating: 1, count: 16),
                    fileName: "f", key: key, path: "p", value: true)
            }
        }
    }

    @Test func everyByteFlipOfTheKeyringIsRefused() throws {
        let store = try fixture.store(provider: .passphrase("pw"))
        try store.set("v", service: "s", account: "a")
        let path = fixture.keyringFolder() + "/keyring.json"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in 0..<original.count {
            var damaged = original
            damaged[index] ^= index % 2 == 0 ? 0x01 : 0x20
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                _ = try fixture.store(provider: .passphrase("pw"))
                Issue.record("a keyring with byte \(index) flipped was accepted")
            } catch let error as StorageError {
                #expect([.corrupt, .authenticationFailed, .unsupportedVersion, .invalidArgument].contains(error.code))
            }
        }
        try original.write(to: URL(fileURLWithPath: path))
        #expect(try fixture.store(provider: .passphrase("pw")).get(service: "s", account: "a")?.stringValue == "v")
    }

    @Test func aNewerKeyringVersionIsRefusedClearly() throws {
        _ = try fixture.store()
        let path = fixture.keyringFolder() + "/keyring.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "\"version\": 2", with: "\"version\": 3")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StorageError.self) { try fixture.store() }
        #expect(error?.code == .unsupportedVersion)
    }

    @Test func anItemSwappedOntoAnotherNameIsRefused() throws {
        let store = try fixture.fileStore()
        try store.set("alice's", service: "s", account: "alice")
        try store.set("bob's", service: "s", account: "bob")
        let files = try fixture.itemFiles()
        let alice = try #require(
            try files.first {
                try store.fileName(ItemIdentity(service: "s", account: "alice")) == ($0 as NSString).lastPathComponent
            }
        )
        let bob = try #require(files.first { $0 != alice })
        try FileManager.default.removeItem(atPath: bob)
        try FileManager.default.copyItem(atPath: alice, toPath: bob)
        let error = #expect(throws: StorageError.self) { try store.get(service: "s", account: "bob") }
        #expect(error?.code == .corrupt)
        #expect(try store.get(service: "s", account: "alice")?.stringValue == "alice's")
    }

    @Test func anItemCopiedIntoAnotherKeyringIsRefused() throws {
        let first = try fixture.fileStore("first")
        let second = try fixture.fileStore("second")
        try first.set("first's", service: "s", account: "a")
        try second.set("second's", service: "s", account: "a")
        let source = try #require(try fixture.itemFiles("first").first)
        let target = try #require(try fixture.itemFiles("second").first)
        // Same key and same names (same data key? no: each keyring has its own), so the name differs too; copy
        // under the target's name to make the test about the binding, not the name.
        try FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: source, toPath: target)
        #expect(throws: StorageError.self) { try second.get(service: "s", account: "a") }
    }

    @Test func thisDeviceOnlyItemsDoNotOpenOnAnotherMachine() throws {
        let store = try fixture.store()
        try store.set("bound", service: "s", account: "device", accessibility: .afterFirstUnlockThisDeviceOnly)
        try store.set("portable", service: "s", account: "portable", accessibility: .afterFirstUnlock)
        let child = try TestExecutables.url(named: "strata-test-child")
        let elsewhere = ["STRATA_DEVICE_ID": "another-machine"]
        let device = try ChildProcess.run(
            child, ["secrets-get", fixture.paths.root, testKeyHex, "s", "device"], environment: elsewhere)
        #expect(device.standardOutput == "error device-mismatch\n", "\(device.standardError)")
        let portable = try ChildProcess.run(
            child, ["secrets-get", fixture.paths.root, testKeyHex, "s", "portable"], environment: elsewhere)
        #expect(portable.standardOutput == "portable\n")
        let here = try ChildProcess.run(child, ["secrets-get", fixture.paths.root, testKeyHex, "s", "device"])
        #expect(here.standardOutput == "bound\n")
    }
}

@Suite("SecretStore: export and import")
struct SecretExportTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test func exportSkipsThisDeviceOnlyAndImportRestores() throws {
        let store = try fixture.store()
        try store.set("one", service: "s", account: "a", label: "first")
        try store.set("two", service: "s", account: "b", accessibility: .afterFirstUnlock)
        try store.set("device", service: "s", account: "c", accessibility: .whenUnlockedThisDeviceOnly)
        let (archive, count, _) = try store.exportItems(protectedBy: Secret("archive pw"))
        #expect(count == 2)
        let target = try fixture.store("restored")
        let wrong = #expect(throws: StorageError.self) { try target.importItems(archive, passphrase: Secret("nope")) }
        #expect(wrong?.code == .authenticationFailed)
        #expect(try target.items().isEmpty, "a failed import stores nothing")
        var damaged = archive
        damaged[damaged.count - 3] ^= 1
        #expect(throws: StorageError.self) { try target.importItems(damaged, passphrase: Secret("archive pw")) }
        #expect(try target.importItems(archive, passphrase: Secret("archive pw")) == 2)
        #expect(try target.get(service: "s", account: "a")?.stringValue == "one")
        #expect(try target.attributes(service: "s", account: "a")?.label == "first")
        #expect(try target.attributes(service: "s", account: "b")?.accessibility == .afterFirstUnlock)
        #expect(try target.get(service: "s", account: "c") == nil)
        #expect(try target.importItems(archive, passphrase: Secret("archive pw")) == 0, "existing items are kept")
        store.lock()
        #expect(throws: StorageError.self) { try store.exportItems(protectedBy: Secret("x")) }
    }
}

@Suite("SecretStore: several processes")
struct SecretProcessTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test func writerKilledMidSetLeavesOldOrNewNeverNone() throws {
        _ = try fixture.store()  // Create the keyring before the children race.
        let child = try TestExecutables.url(named: "strata-test-child")
        var next = 0
        let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init).map { $0 / 4 } ?? 40
        for round in 0..<rounds {
            let process = try ChildProcess(child, ["secrets-set-loop", fixture.paths.root, testKeyHex, "\(next)"])
            try process.waitForLine { $0.hasPrefix("ack ") }
            Thread.sleep(forTimeInterval: Double(round % 7) / 1000)
            process.kill(SIGKILL)
            _ = process.wait()
            let acknowledged = process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()!
            let value = try fixture.store().get(service: "svc", account: "acct")?.stringValue
            #expect(
                value == "value \(acknowledged)" || value == "value \(acknowledged + 1)",
                "round \(round): \(value ?? "none")")
            next = acknowledged + 2
        }
    }

    @Test func fourProcessesWritingOneKeyringLoseNothing() throws {
        _ = try fixture.store()
        let child = try TestExecutables.url(named: "strata-test-child")
        let processes = try (0..<4).map { writer in
            try ChildProcess(child, ["secrets-write-accounts", fixture.paths.root, testKeyHex, "w\(writer)", "25"])
        }
        for process in processes { #expect(process.wait().status == 0) }
        let store = try fixture.store()
        #expect(try store.items(service: "shared").count == 100)
        for writer in 0..<4 {
            for index in 0..<25 {
                #expect(
                    try store.get(service: "shared", account: "w\(writer)-\(index)")?.stringValue
                        == "secret w\(writer)-\(index)")
            }
        }
    }
}

@Suite("Known answers: libsodium against independent implementations")
struct KnownAnswerTests {
    func bytes(_ hex: String) -> [UInt8] { KeyProvider.hexBytes(hex)! }

    /// draft-irtf-cfrg-xchacha, appendix A.3.1; the expected bytes were recomputed here with Python's
    /// `cryptography` (ChaCha20-Poly1305 over an HChaCha20 subkey written in Python).
    @Test func xchacha20Poly1305() throws {
        let key = (0x80...0x9F).map { UInt8($0) }
        let nonce = (0x40...0x57).map { UInt8($0) }
        let associated = bytes("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let expected = bytes(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52ec0875924c1c7987947deafd8780acf49"
        )
        let sealed = key.withUnsafeBytes { key in
            plaintext.withUnsafeBytes { Sodium.seal($0, additionalData: associated, nonce: nonce, key: key) }
        }
        #expect(sealed == expected)
        var opened = [UInt8](repeating: 0, count: plaintext.count)
        let ok = key.withUnsafeBytes { key in
            expected.withUnsafeBytes { sealed in
                nonce.withUnsafeBytes { nonce in
                    opened.withUnsafeMutableBytes {
                        Sodium.open(sealed, additionalData: associated, nonce: nonce, key: key, into: $0)
                    }
                }
            }
        }
        #expect(ok && opened == plaintext)
        // A changed tag or associated data fails.
        var tampered = expected
        tampered[tampered.count - 1] ^= 1
        let rejected = key.withUnsafeBytes { key in
            tampered.withUnsafeBytes { sealed in
                nonce.withUnsafeBytes { nonce in
                    opened.withUnsafeMutableBytes {
                        Sodium.open(sealed, additionalData: associated, nonce: nonce, key: key, into: $0)
                    }
                }
            }
        }
        #expect(!rejected)
    }

    /// Argon2id computed independently with Python's `cryptography` (its own Argon2 implementation):
    /// `Argon2id(salt=bytes(range(16)), length=32, iterations=N, lanes=1, memory_cost=KiB)`.
    @Test(arguments: [
        (UInt64(2), 64 << 10, "2df47ede6358ed17a9976d4fcedb897a10036d432a4acef17d263bfc98bd20ac"),
        (UInt64(3), 8 << 20, "947312f62e4ac86f63c9b622f147b0061846739f53dd00f2d2236cd03db413ac"),
    ])
    func argon2id(_ operations: UInt64, _ memory: Int, _ expected: String) throws {
        let password = Array("correct horse battery staple".utf8)
        var output = [UInt8](repeating: 0, count: 32)
        let ok = password.withUnsafeBytes { password in
            output.withUnsafeMutableBytes {
                Sodium.passwordHash(
                    password, salt: (0..<16).map { UInt8($0) }, operations: operations, memory: memory, into: $0)
            }
        }
        #expect(ok)
        #expect(hex(output) == expected)
    }

    /// Keyed BLAKE2b, as Python's `hashlib.blake2b(b"service\0account", key=bytes(range(32)), digest_size=16)`.
    @Test func keyedBlake2b() {
        let key = (0..<32).map { UInt8($0) }
        let digest = key.withUnsafeBytes { Sodium.keyedHash(Array("service\0account".utf8), key: $0, length: 16) }
        #expect(hex(digest) == "05c6bd745ba7ccc3b0edcc0d3f8a0420")
    }
}
