import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataTestSupport
import Testing

/// Key slots of a backup repository: another passphrase or key file added, one removed, one changed — the data
/// stays readable under every key that is left, and a removed or replaced key no longer opens it.
@Suite("Backup repository: key slots")
struct BackupKeySlotTests {
    static let second = RepositoryKey.passphrase("a second passphrase", cost: .minimumForTests)

    func opens(_ fixture: BackupFixture, with key: RepositoryKey) -> Bool {
        (try? BackupRepository.open(at: fixture.path, key: key)) != nil
    }

    @Test("an added passphrase and an added key file open the repository and read its snapshots")
    func addedKeysOpen() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("a", Array("alpha".utf8))])
        let repository = try fixture.open()
        let added = try repository.addKey(Self.second)
        let keyFile = fixture.directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        let fileSlot = try repository.addKey(.keyFile(keyFile))
        for key in [BackupFixture.key, Self.second, .keyFile(keyFile)] {
            let reader = try BackupRepository.open(at: fixture.path, key: key).snapshot(summary.id)
            #expect(try reader.contents(of: reader.files[0]) == Array("alpha".utf8))
        }
        let slots = try repository.keySlots()
        #expect(slots.count == 3)
        #expect(slots.filter(\.isCurrent).count == 1)
        #expect(slots.first { $0.id == added }?.kind == .passphrase)
        #expect(slots.first { $0.id == added }?.cost?.memory == PasswordHashCost.minimumForTests.memory)
        #expect(slots.first { $0.id == fileSlot }?.kind == .keyFile)
        #expect(slots.first { $0.id == fileSlot }?.cost == nil)
        #expect(!opens(fixture, with: .passphrase("never added", cost: .minimumForTests)))
    }

    @Test("changing the key: the new one opens, the old one no longer does, the data is unchanged")
    func changeKey() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("a", Array("alpha".utf8))])
        let repository = try fixture.open()
        let new = try repository.changeKey(to: Self.second)
        #expect(!opens(fixture, with: BackupFixture.key))
        let error = #expect(throws: StorageError.self) {
            try BackupRepository.open(at: fixture.path, key: BackupFixture.key)
        }
        #expect(error?.code == .authenticationFailed)
        let reopened = try BackupRepository.open(at: fixture.path, key: Self.second)
        #expect(try reopened.keySlots().map(\.id) == [new])
        #expect(try reopened.keySlots().first?.isCurrent == true)
        let reader = try reopened.snapshot(summary.id)
        #expect(try reader.contents(of: reader.files[0]) == Array("alpha".utf8))
        // The handle that changed it keeps working, and knows its new slot.
        #expect(try repository.keySlots().first { $0.isCurrent }?.id == new)
        let writer = try repository.beginSnapshot()
        try writer.add(BackupFixture.captured("b", size: 1), contents: [2])
        #expect(try writer.commit(metadata: [:]).fileCount == 1)
    }

    @Test(
        "removing a slot: another's key stops opening; the current slot, an unknown id and a shared prefix are refused")
    func removeKey() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        let added = try repository.addKey(Self.second)
        let current = try #require(try repository.keySlots().first { $0.isCurrent }).id
        let refused = #expect(throws: StorageError.self) { try repository.removeKey(String(current.prefix(8))) }
        #expect(refused?.code == .invalidArgument)
        #expect(opens(fixture, with: BackupFixture.key))
        let unknown = #expect(throws: StorageError.self) { try repository.removeKey("zz") }
        #expect(unknown?.code == .notFound)
        let empty = #expect(throws: StorageError.self) { try repository.removeKey("") }
        #expect(empty?.code == .notFound)
        try repository.removeKey(String(added.prefix(10)))
        #expect(!opens(fixture, with: Self.second))
        #expect(opens(fixture, with: BackupFixture.key))
        #expect(try repository.keySlots().count == 1)
    }

    @Test("a damaged slot is listed with its damage, and the other slots still open the repository")
    func damagedSlotListed() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        let added = try repository.addKey(Self.second)
        let path = fixture.path + "/keys/" + added
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let slots = try repository.keySlots()
        let damaged = try #require(slots.first { $0.id == added })
        #expect(damaged.kind == nil)
        #expect(damaged.damage?.code == .corrupt)
        #expect(opens(fixture, with: BackupFixture.key))
        // It can be removed, so the damage can be cleaned up.
        try repository.removeKey(added)
        #expect(try repository.keySlots().count == 1)
    }

    @Test("an empty new passphrase is refused and nothing is written")
    func emptyPassphrase() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        let error = #expect(throws: StorageError.self) { try repository.changeKey(to: .passphrase("")) }
        #expect(error?.code == .invalidArgument)
        #expect(try repository.keySlots().count == 1)
        #expect(opens(fixture, with: BackupFixture.key))
    }
}
