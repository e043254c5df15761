import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 17 item 2: a rotation replaces the data key and re-seals every item, crash-safe, while other processes
/// read and write.
@Suite("SecretStore: key rotation")
struct SecretRotationTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    static let service = "rotsvc-MARK"

    func fill(_ store: SecretStore, count: Int) throws {
        let classes = SecretAccessibility.allCases
        for index in 0..<count {
            try store.set(
                "value-\(index)", service: Self.service, account: "\(index)",
                accessibility: classes[index % classes.count])
        }
    }

    /// The data keys the keyring's files give with `provider`, without unlocking (so without finishing an
    /// interrupted rotation): `keyring.json`'s, and the next one while `rotation.key` names another.
    func keyringKeys(provider: KeyProvider = testKey) throws -> (keyringID: [UInt8], keys: [DataKeys]) {
        let store = try SecretStore(paths: fixture.paths, configuration: fastPasswords)
        let file = try #require(try store.readKeyring())
        let current = try DataKeys(store.unwrap(file, with: provider).data)
        guard
            let data = try AtomicFile.read(
                in: store.keyringFolder(), name: RotationFile.fileName, maximumSize: 4096)
        else { return (file.id, [current]) }
        let rotation = try RotationFile.parse(data, keyringID: file.id, path: "")
        guard rotation.nextCheck != current.check else { return (file.id, [current]) }
        return (file.id, [current, try DataKeys(rotation.open(keyringID: file.id, with: current, path: ""))])
    }

    /// Checks that every item — each item file, and each item the manifest holds (a file of such an item is a
    /// leftover, never read) — opens under exactly one of the keyring's keys and holds `value-<account>`.
    /// - Returns: How many items there are.
    @discardableResult
    func expectEveryItemUnderExactlyOneKey(_ context: String) throws -> Int {
        let (keyringID, keys) = try keyringKeys()
        let manifest = try Data(
            contentsOf: URL(fileURLWithPath: fixture.keyringFolder() + "/" + ItemManifest.fileName))
        let inline = try #require(ItemManifest.unauthenticatedInlineItems(manifest), "\(context): manifest")
        var items = inline.map { (name: $0.key, path: "manifest " + $0.key, file: $0.value) }
        for path in try fixture.itemFiles() where inline[(path as NSString).lastPathComponent] == nil {
            items.append(
                ((path as NSString).lastPathComponent, path, try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        var count = 0
        for (name, path, file) in items {
            let (accessibility, version) = try ItemEnvelope.header(of: file, path: path)
            let opened = keys.compactMap { keys in
                try? ItemEnvelope.open(
                    file, accessibility: accessibility, version: version, keyringID: keyringID, fileName: name,
                    key: keys.classKey(accessibility), path: path, value: true)
            }
            #expect(opened.count == 1, "\(context): \(name) opens under \(opened.count) keys")
            if let (record, secret) = opened.first {
                #expect(secret?.stringValue == "value-\(record.account)", "\(context): \(record.account)")
            }
            count += 1
        }
        return count
    }

    /// No value and no service name in any file under the root.
    func expectNoPlaintext(_ context: String) throws {
        let markers = ["value-", Self.service].map { Array($0.utf8) }
        for relative in try FileManager.default.subpathsOfDirectory(atPath: fixture.paths.root) {
            guard let bytes = FileManager.default.contents(atPath: fixture.paths.root + "/" + relative) else {
                continue
            }
            for marker in markers {
                let found =
                    bytes.count >= marker.count
                    && (0...(bytes.count - marker.count)).contains {
                        bytes[$0..<($0 + marker.count)].elementsEqual(marker)
                    }
                #expect(!found, "\(context): \(relative) holds \(String(decoding: marker, as: UTF8.self))")
            }
        }
    }

    @Test func rotationResealsEveryItemAndTheOldKeyringOpensNothingWrittenAfter() throws {
        let passphrase = KeyProvider.passphrase("old passphrase")
        let store = try fixture.fileStore(provider: passphrase)
        try fill(store, count: 12)
        let keyringPath = fixture.keyringFolder() + "/keyring.json"
        let oldKeyring = try Data(contentsOf: URL(fileURLWithPath: keyringPath))
        let before = try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let rotation = try store.rotate(with: passphrase)
        #expect(rotation == SecretRotation(resealed: 12, unreadable: []))
        #expect(try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) } != before)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyringFolder() + "/" + RotationFile.fileName))
        try store.set("value-after", service: Self.service, account: "after")
        for reader in [store, try fixture.store(provider: passphrase)] {
            for index in 0..<12 {
                #expect(try reader.get(service: Self.service, account: "\(index)")?.stringValue == "value-\(index)")
            }
            #expect(try reader.get(service: Self.service, account: "after")?.stringValue == "value-after")
        }
        try expectNoPlaintext("after rotation")

        // The old keyring file and passphrase: they unlock, and open nothing, old or new; the error names the old
        // keyring.json put back (the manifest says which key it was rotated from), not a rotation elsewhere.
        try oldKeyring.write(to: URL(fileURLWithPath: keyringPath))
        let old = try fixture.store(provider: passphrase)
        for account in ["after", "0", "5"] {
            let refused = #expect(throws: StorageError.self) { try old.get(service: Self.service, account: account) }
            #expect(refused?.code == .rolledBack)
            #expect(refused?.path == keyringPath)
        }
        let (keyringID, keys) = try keyringKeys(provider: passphrase)
        #expect(keys.count == 1, "no rotation record is left to lead from the old key to the new")
        let path =
            fixture.keyringFolder() + "/" + (try store.fileName(ItemIdentity(service: Self.service, account: "after")))
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StorageError.self) {
            try ItemEnvelope.open(
                file, accessibility: .whenUnlocked, version: 1, keyringID: keyringID,
                fileName: (path as NSString).lastPathComponent, key: keys[0].whenUnlocked, path: path, value: true)
        }
    }

    @Test func aWrongProviderRotatesNothing() throws {
        let store = try fixture.store(provider: .passphrase("right"))
        try fill(store, count: 3)
        let before = try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let refused = #expect(throws: StorageError.self) { try store.rotate(with: .passphrase("wrong")) }
        #expect(refused?.code == .authenticationFailed)
        #expect(try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        store.lock()
        #expect(throws: StorageError.self) { try store.rotate(with: .passphrase("right")) }
    }

    /// Writes a version 1 keyring as an earlier release made it (the data key alone; names derived from it), under
    /// the test key, and returns its data key.
    func firstFormatKeyring() throws -> GuardedKey {
        let folder = fixture.keyringFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dataKey = try GuardedKey.random()
        var file = KeyringFile(
            version: 1, name: "default", id: Sodium.random(16), provider: "in-memory", kdf: nil,
            nonce: Sodium.random(Sodium.nonceBytes), wrappedKey: [])
        let wrapping = try testKey.wrappingKey(kdf: nil)
        let associated = file.associatedData
        file.wrappedKey = try wrapping.withBytes { wrap in
            try dataKey.withBytes { Sodium.seal($0, additionalData: associated, nonce: file.nonce, key: wrap) }
        }
        try file.serialized.write(to: URL(fileURLWithPath: folder + "/keyring.json"))
        return dataKey
    }

    @Test func aFirstFormatKeyringWithoutManifestKeepsReadingAfterPasswd() throws {
        _ = try firstFormatKeyring()
        try fill(try fixture.fileStore(), count: 3)
        // As an earlier release left it: items, no manifest.
        try FileManager.default.removeItem(atPath: fixture.keyringFolder() + "/" + ItemManifest.fileName)
        let store = try fixture.store()
        try store.changeKey(to: .passphrase("new"))
        #expect(try store.readKeyring()?.version == 2)
        for reader in [store, try fixture.store(provider: .passphrase("new"))] {
            #expect(try reader.get(service: Self.service, account: "1")?.stringValue == "value-1")
        }
    }

    @Test func aFirstFormatKeyringOpensAndRotatesToTheSecond() throws {
        let dataKey = try firstFormatKeyring()
        let store = try fixture.fileStore()
        try fill(store, count: 4)
        let names = try fixture.itemFiles()
        let nameKey = try dataKey.derive("strata item names")
        let expected = try (0..<4).map { index in
            let message = ItemIdentity(service: Self.service, account: "\(index)").nameMessage
            return try nameKey.withBytes { Hex.encode(Sodium.keyedHash(message, key: $0, length: 16)) } + ".item"
        }
        #expect(names.map { ($0 as NSString).lastPathComponent }.sorted() == expected.sorted())
        #expect(try store.rotate(with: testKey).resealed == 4)
        #expect(try store.readKeyring()?.version == 2)
        #expect(try fixture.itemFiles() == names, "a rotation keeps the file names")
        try expectEveryItemUnderExactlyOneKey("rotated first format")
    }

    @Test func anotherMachinesDeviceOnlyItemStopsTheRotationBeforeAnythingChanges() throws {
        let store = try fixture.store()
        try store.set(
            "value-bound", service: Self.service, account: "bound", accessibility: .whenUnlockedThisDeviceOnly)
        try store.set("value-free", service: Self.service, account: "free")
        let folder = fixture.keyringFolder()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
            ($0, try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)))
        }
        let elsewhere = try ChildProcess.run(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-rotate-once", fixture.paths.root, testKeyHex],
            environment: ["STRATA_DEVICE_ID": "another-machine"])
        #expect(elsewhere.standardOutput == "error device-mismatch\n", "\(elsewhere.standardError)")
        let after = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
            ($0, try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)))
        }
        #expect(after.map(\.0) == before.map(\.0))
        #expect(after.map(\.1) == before.map(\.1), "nothing changed")
        #expect(try store.rotate(with: testKey).resealed == 2, "on its own machine it rotates")
        #expect(try fixture.store().get(service: Self.service, account: "bound")?.stringValue == "value-bound")
    }

    @Test func readersAndWritersInOtherProcessesKeepWorking() throws {
        let store = try fixture.store()
        let count = 150
        try fill(store, count: count)
        let child = try TestExecutables.url(named: "strata-test-child")
        let reader = try ChildProcess(
            child, ["secrets-read-loop", fixture.paths.root, testKeyHex, Self.service, "\(count)"])
        defer { reader.kill() }
        _ = try reader.waitForLine { $0 == "ok" }
        let writer = try ChildProcess(child, ["secrets-write-relock", fixture.paths.root, testKeyHex, "written", "40"])
        try store.rotate(with: testKey)
        let linesDuringRotation = reader.lines
        #expect(writer.wait().status == 0)
        #expect(writer.lines.last == "done")
        reader.kill()
        _ = reader.wait()
        #expect(linesDuringRotation.allSatisfy { $0 == "ok" }, "\(linesDuringRotation.filter { $0 != "ok" })")
        try expectEveryItemUnderExactlyOneKey("after rotation")
        let reopened = try fixture.store()
        for index in 0..<40 {
            #expect(try reopened.get(service: "written", account: "\(index)")?.stringValue == "value-\(index)")
        }
    }

    /// The acceptance test: the rotating process is killed at many points (each new process first finishes the
    /// rotation the last one left), and after every kill each item opens under exactly one key, and no file holds
    /// plaintext. `STRATA_TORTURE_ROUNDS` sets the kills (50 by default, for CI time), `STRATA_ROTATION_ITEMS`
    /// the items (100); the issue's acceptance run is `STRATA_TORTURE_ROUNDS=200 STRATA_ROTATION_ITEMS=1000`.
    @Test func killedAtAnyPointEveryItemStaysReadableUnderExactlyOneKey() throws {
        let environment = ProcessInfo.processInfo.environment
        let kills = environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init) ?? 50
        let items = environment["STRATA_ROTATION_ITEMS"].flatMap(Int.init) ?? 100
        try fill(try fixture.store(), count: items)
        let child = try TestExecutables.url(named: "strata-test-child")
        // One whole rotation, timed, to spread the kills over it.
        let timed = try ChildProcess(child, ["secrets-rotate-loop", fixture.paths.root, testKeyHex])
        _ = try timed.waitForLine { $0 == "unlocked" }
        let started = Date()
        _ = try timed.waitForLine(timeout: 300) { $0.hasPrefix("rotated") }
        let duration = Date().timeIntervalSince(started)
        timed.kill()
        _ = timed.wait()
        var killedMidRotation = 0
        for round in 0..<kills {
            let process = try ChildProcess(child, ["secrets-rotate-loop", fixture.paths.root, testKeyHex])
            _ = try process.waitForLine { $0 == "start" }
            // Spread over unlocking (which finishes the last rotation) and a whole new rotation.
            Thread.sleep(forTimeInterval: duration * 1.2 * Double((round * 37) % kills) / Double(kills))
            process.kill()
            _ = process.wait()
            if FileManager.default.fileExists(atPath: fixture.keyringFolder() + "/" + RotationFile.fileName) {
                killedMidRotation += 1
            }
            #expect(try expectEveryItemUnderExactlyOneKey("round \(round)") == items)
            try expectNoPlaintext("round \(round)")
        }
        #expect(killedMidRotation > kills / 4, "most kills land inside a rotation (\(killedMidRotation))")
        let store = try fixture.store()
        #expect(!FileManager.default.fileExists(atPath: fixture.keyringFolder() + "/" + RotationFile.fileName))
        for index in 0..<items {
            #expect(try store.get(service: Self.service, account: "\(index)")?.stringValue == "value-\(index)")
        }
        print(
            "rotation of \(items) items: \(Int(duration * 1000)) ms; \(kills) kills, \(killedMidRotation) mid-rotation")
    }
}
