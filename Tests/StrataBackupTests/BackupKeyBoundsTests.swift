import Foundation
import StrataCore
import StrataSecrets
import StrataTestSupport
import Testing

@testable import StrataBackup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What may open a repository (issue 33, items 7 and 17): a key file another user owns is refused as the secrets
/// tier refuses one, and the key slots are bounded in number and in Argon2id work, when added and when tried.
@Suite("Backup repository: key files and key slot bounds")
struct BackupKeyBoundsTests {
    /// Writes a slot sealing the repository's master key under `key` as `keys/NAME`, as a hostile or older writer
    /// could (no bound checked).
    private func plant(_ key: RepositoryKey, as name: String, in fixture: BackupFixture, master: [UInt8]) throws {
        try Data(try KeySlot.make(sealing: master, under: key).encoded()).write(
            to: URL(fileURLWithPath: fixture.path + "/keys/" + name))
    }

    /// A slot name that sorts at `position` (1-based) among the planted ones, before any random name.
    private func name(_ position: Int) -> String { String(format: "%064x", position) }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a key file to another user"))
    func aKeyFileOfAnotherUserIsRefused() throws {
        let fixture = try BackupFixture()
        let keyFile = fixture.directory.appending("their.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        let repository = try fixture.open()
        try repository.addKey(.keyFile(keyFile))
        chown(keyFile, 65534, 65534)
        let open = try #require(throws: StorageError.self) {
            _ = try BackupRepository.open(at: fixture.path, key: .keyFile(keyFile))
        }
        #expect(open.code == .unsafePermissions && open.path == keyFile)
        #expect(open.message.contains("belongs to user 65534"))
        // Nor can it be added as a new slot: that user could open the repository.
        let other = fixture.directory.appending("other.key")
        try RepositoryKey.createKeyFile(at: other)
        chown(other, 65534, 65534)
        let add = try #require(throws: StorageError.self) { try repository.addKey(.keyFile(other)) }
        #expect(add.code == .unsafePermissions && add.path == other)
        #expect(try repository.keySlots().count == 2)
    }

    @Test("a key file that is a link, or open to others, is refused as the secrets tier's are")
    func keyFileChecksAreTheSecretsTiers() throws {
        let fixture = try BackupFixture()
        let keyFile = fixture.directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        try fixture.open().addKey(.keyFile(keyFile))
        let link = fixture.directory.appending("link.key")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: keyFile)
        let linked = try #require(throws: StorageError.self) {
            _ = try BackupRepository.open(at: fixture.path, key: .keyFile(link))
        }
        #expect(linked.code == .symbolicLink)
        chmod(keyFile, 0o604)
        let open = try #require(throws: StorageError.self) {
            _ = try BackupRepository.open(at: fixture.path, key: .keyFile(keyFile))
        }
        #expect(open.code == .unsafePermissions && open.recovery?.contains("chmod 600") == true)
    }

    @Test("a repository holds at most maximumKeySlots slots: one more is refused, naming the bound")
    func slotCountIsBounded() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        for index in 1..<BackupRepository.maximumKeySlots {
            try repository.addKey(.passphrase("passphrase \(index)", cost: .minimumForTests))
        }
        let error = try #require(throws: StorageError.self) {
            try repository.addKey(.passphrase("one too many", cost: .minimumForTests))
        }
        #expect(error.code == .limitExceeded && error.path == fixture.path + "/keys")
        #expect(try repository.keySlots().count == BackupRepository.maximumKeySlots)
        // Changing a key replaces a slot: still allowed at the bound.
        try repository.changeKey(to: .passphrase("changed", cost: .minimumForTests))
        _ = try BackupRepository.open(at: fixture.path, key: .passphrase("changed", cost: .minimumForTests))
    }

    @Test("the passphrase slots' Argon2id work is bounded: a slot past maximumPassphraseWork is refused")
    func slotWorkIsBounded() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        // Three at the highest accepted cost fit beside the fixture's own; a fourth would not.
        for index in 0..<3 { try repository.addKey(.passphrase("heavy \(index)", cost: .moderate)) }
        let error = try #require(throws: StorageError.self) {
            try repository.addKey(.passphrase("heavy 3", cost: .moderate))
        }
        #expect(error.code == .limitExceeded)
        #expect(try repository.keySlots().count == 4)
        // Key files cost no Argon2id work.
        let keyFile = fixture.directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        try repository.addKey(.keyFile(keyFile))
        // A cost an open would refuse is refused when the slot is made.
        let past = try #require(throws: StorageError.self) {
            try repository.addKey(.passphrase("x", cost: PasswordHashCost(operations: 4, memory: 8 << 10)))
        }
        #expect(past.code == .invalidArgument)
    }

    @Test("an open tries at most maximumKeySlots slots, and says which were left untried")
    func openTriesAtMostTheBoundOfSlots() throws {
        let fixture = try BackupFixture()
        let master = try fixture.open().master
        let own = try #require(try fixture.files(in: "keys").first)
        // The fixture's own slot sorts after the planted ones: past the bound.
        try FileManager.default.moveItem(
            atPath: fixture.path + "/" + own, toPath: fixture.path + "/keys/" + String(repeating: "f", count: 64))
        for index in 1...BackupRepository.maximumKeySlots {
            try plant(
                .passphrase("planted \(index)", cost: .minimumForTests), as: name(index), in: fixture, master: master)
        }
        let error = try #require(throws: StorageError.self) { _ = try fixture.open() }
        #expect(error.code == .limitExceeded, "\(error)")
        #expect(error.message.contains("none of the 16 key slots tried; 1 more were not tried"), "\(error)")
        // A slot within the bound still opens it.
        _ = try BackupRepository.open(at: fixture.path, key: .passphrase("planted 3", cost: .minimumForTests))
    }

    @Test("an open stops trying passphrase slots once their work would pass maximumPassphraseWork")
    func openTriesAtMostTheBoundOfWork() throws {
        let fixture = try BackupFixture()
        let master = try fixture.open().master
        let own = try #require(try fixture.files(in: "keys").first)
        try FileManager.default.moveItem(
            atPath: fixture.path + "/" + own, toPath: fixture.path + "/keys/" + String(repeating: "f", count: 64))
        for index in 1...5 {
            try plant(.passphrase("heavy \(index)", cost: .moderate), as: name(index), in: fixture, master: master)
        }
        // Four heavy slots are tried (the bound); the fifth and the fixture's are not.
        let error = try #require(throws: StorageError.self) {
            _ = try BackupRepository.open(at: fixture.path, key: .passphrase("wrong", cost: .minimumForTests))
        }
        #expect(error.code == .limitExceeded, "\(error)")
        #expect(error.message.contains("none of the 4 key slots tried; 2 more were not tried"), "\(error)")
        // A key file is tried whatever the passphrase slots cost.
        let keyFile = fixture.directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        try plant(.keyFile(keyFile), as: name(6), in: fixture, master: master)
        _ = try BackupRepository.open(at: fixture.path, key: .keyFile(keyFile))
    }
}
