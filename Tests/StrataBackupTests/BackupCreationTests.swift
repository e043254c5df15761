import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Making a repository (issue 33, items 14 and 16): a creation that fails or is killed never blocks the next one,
/// and a folder that others may change is refused, as a store's is.
@Suite("Backup repository: creation", .serialized)
struct BackupCreationTests {
    let directory: TemporaryDirectory
    var path: String { directory.appending("repo") }

    init() throws { directory = try TemporaryDirectory(prefix: "strata-backup-create") }

    private func entries(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// A new repository at `path` works: a snapshot written into it restores.
    private func works(_ repository: BackupRepository) throws {
        let writer = try repository.beginSnapshot()
        try writer.add(BackupFixture.captured("a", size: 3), contents: [1, 2, 3])
        let summary = try writer.commit()
        let reader = try BackupRepository.open(at: path, key: BackupFixture.key).snapshot(summary.id)
        #expect(try reader.contents(of: reader.files[0]) == [1, 2, 3])
    }

    @Test("a creation that fails midway removes the folder it made, and the next one succeeds")
    func failedCreationInANewFolder() throws {
        defer { FaultInjector.shared.reset() }
        FaultInjector.shared.inject(.error(ENOSPC), on: .rename, pathContaining: path + "/config")
        let error = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: path, key: BackupFixture.key)
        }
        #expect(error.code == .noSpace)
        FaultInjector.shared.reset()
        #expect(!FileManager.default.fileExists(atPath: path))
        try works(try BackupRepository.create(at: path, key: BackupFixture.key))
    }

    @Test("a creation that fails in an empty folder given to it leaves the folder empty")
    func failedCreationInAnEmptyFolder() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o700)
        defer { FaultInjector.shared.reset() }
        FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: path + "/config")
        #expect(throws: StorageError.self) { _ = try BackupRepository.create(at: path, key: BackupFixture.key) }
        FaultInjector.shared.reset()
        // The lock file stays (removing a lock file others may wait on would let two holders in); nothing else.
        #expect(try entries(path) == ["lock"])
        try works(try BackupRepository.create(at: path, key: BackupFixture.key))
    }

    @Test("a key that cannot seal is refused before anything is made")
    func refusedKeyMakesNothing() throws {
        let keyFile = directory.appending("open.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        chmod(keyFile, 0o644)
        let error = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: path, key: .keyFile(keyFile))
        }
        #expect(error.code == .unsafePermissions)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a creation killed at each of its system calls leaves a folder the next creation takes, or a repository")
    func killedCreation() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let kill = FaultKill(on: path)
        let whole = try ChildProcess.run(
            child, ["backup-init", path, "dead passphrase"], environment: kill.environment(at: 0))
        #expect(whole.status == 0, "\(whole.standardError)")
        // The folders made, the key slot and the configuration each written, flushed and named.
        let points = try #require(FaultKill.matchedCalls(in: whole.standardError))
        #expect(points >= 8)
        for point in 1...points {
            try FileManager.default.removeItem(atPath: path)
            let killed = try ChildProcess.run(
                child, ["backup-init", path, "dead passphrase"], environment: kill.environment(at: point))
            #expect(killed.wasSignalled, "point \(point): \(killed.standardOutput) \(killed.standardError)")
            if FileManager.default.fileExists(atPath: path + "/config") {
                // Killed past the commit point (the folder's last flush): the repository exists, and opens.
                _ = try BackupRepository.open(at: path, key: .passphrase("dead passphrase", cost: .minimumForTests))
                #expect(point >= points - 1, "point \(point): \(FaultKill.killedCall(in: killed.standardError) ?? "")")
                continue
            }
            try works(try BackupRepository.create(at: path, key: BackupFixture.key))
            // The dead creation's key slot went with it.
            #expect(try entries(path + "/keys").count == 1, "point \(point)")
            #expect(throws: StorageError.self) {
                _ = try BackupRepository.open(at: path, key: .passphrase("dead passphrase", cost: .minimumForTests))
            }
        }
    }

    @Test("a folder holding anything else, or a repository already, is refused and left as it was")
    func foreignContentIsRefused() throws {
        try FileManager.default.createDirectory(atPath: path + "/data", withIntermediateDirectories: true)
        chmod(path, 0o700)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path + "/data/notes.txt"))
        let error = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: path, key: BackupFixture.key)
        }
        #expect(error.code == .invalidArgument && error.path == path)
        #expect(try entries(path) == ["data"])
        #expect(try entries(path + "/data") == ["notes.txt"])
        let fixture = try BackupFixture()
        let again = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: fixture.path, key: BackupFixture.key)
        }
        #expect(again.code == .invalidArgument && again.message.contains("repository already"))
        _ = try fixture.open()
    }

    @Test("a folder every user, or its group, may write in is refused, as a store's is; nothing is made in it")
    func writableFolderIsRefused() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        for mode: mode_t in [0o777, 0o770, 0o1777] {
            chmod(path, mode)
            let error = try #require(throws: StorageError.self) {
                _ = try BackupRepository.create(at: path, key: BackupFixture.key)
            }
            #expect(error.code == .unsafePermissions && error.path == path, "mode \(String(mode, radix: 8))")
            #expect(error.recovery?.contains("chmod") == true)
            #expect(try entries(path).isEmpty)
        }
        // An existing repository that every user may write in is refused when opened.
        let fixture = try BackupFixture()
        chmod(fixture.path, 0o777)
        let open = try #require(throws: StorageError.self) { _ = try fixture.open() }
        #expect(open.code == .unsafePermissions && open.path == fixture.path)
        chmod(fixture.path, 0o750)
        _ = try fixture.open()  // Group-readable, or shared by a backup group: accepted.
        chmod(fixture.path + "/data", 0o777)
        let data = try #require(throws: StorageError.self) { _ = try fixture.open() }
        #expect(data.code == .unsafePermissions && data.path == fixture.path + "/data")
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a folder to another user"))
    func anotherUsersFolderIsRefused() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o777)
        chown(path, 65534, 65534)
        let error = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: path, key: BackupFixture.key)
        }
        #expect(error.code == .unsafePermissions)
        chmod(path, 0o700)
        let owner = try #require(throws: StorageError.self) {
            _ = try BackupRepository.create(at: path, key: BackupFixture.key)
        }
        #expect(owner.code == .unsafePermissions && owner.message.contains("belongs to user 65534"))
        #expect(try entries(path).isEmpty)
    }
}
