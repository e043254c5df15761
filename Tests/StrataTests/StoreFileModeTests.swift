import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every file of a store has the store's mode, whoever made it: SQLite creating the records database, or a restore
/// writing what a snapshot holds (whose recorded modes are the captured machine's, or anyone's who held its key).
@Suite("Storage: file modes")
struct StoreFileModeTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-modes")
    }

    /// The modes of every file and folder under `root`, by path relative to it.
    static func modes(under root: String) throws -> [String: Int] {
        var modes: [String: Int] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        while let path = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
            modes[path] = (attributes[.posixPermissions] as? Int ?? -1) & 0o7777
        }
        return modes
    }

    /// A store with a value in every tier, its files given `mode` where the tiers keep them.
    func filledStore(mode: Int? = nil) throws -> Storage {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        try storage.defaults.flush()
        if let mode {
            for (path, _) in try Self.modes(under: root) where !path.contains("/locks") {
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder)
                if !isFolder.boolValue {
                    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: root + "/" + path)
                }
            }
        }
        return storage
    }

    /// The records database and its `-wal` and `-shm` are private as every other file of a new store (SQLite made
    /// them 0644 less the umask), and readable and writable by the group in a store shared with it (SQLite writes them
    /// in place).
    @Test(arguments: [StoragePaths.Sharing.private, .group])
    func theRecordsDatabaseHasTheStoresMode(_ sharing: StoragePaths.Sharing) throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let paths = try StoragePaths(root: root, sharing: sharing)
        let store = try RecordStore(name: "main", paths: paths)
        try store.put(Data("v".utf8), for: "k")
        let expected = sharing == .group ? 0o660 : 0o600
        let modes = try Self.modes(under: root)
        for name in ["records/main.sqlite", "records/main.sqlite-wal", "records/main.sqlite-shm"] {
            #expect(modes[name] == expected, "\(name): \(String(modes[name] ?? -1, radix: 8))")
        }
        _ = store
    }

    /// A new store made through `Storage` has no file anyone else can read.
    @Test func aNewStoreHasNoFileOthersCanRead() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let storage = try filledStore()
        for (path, mode) in try Self.modes(under: root) {
            #expect(mode & 0o077 == 0, "\(path): \(String(mode, radix: 8))")
        }
        _ = storage
    }

    /// A capture that records 0666 (or 0000, or 0755) for every file restores with every file 0600 and every folder
    /// 0700, and the store reads back.
    @Test(arguments: [0o666, 0o000, 0o755])
    func aRestoreGivesTheStoresModesNotTheRecordedOnes(_ recorded: Int) throws {
        _ = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try openStorage(root).capture(into: capture)
        try capture.rewrite { files in
            for index in files.indices { files[index].mode = UInt32(recorded) }
        }
        let target = directory.appending("restored")
        try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        try expectPrivate(target)
        let restored = try openStorage(target)
        for (tier, _) in descriptorForTier {
            #expect(try restored.data(for: "k/\(tier)") == Data("value of \(tier)".utf8))
        }
    }

    /// The same through a backup repository and the real tool: live files made 0666 before the backup (so the
    /// snapshot records it) come back 0600.
    @Test func strataRestoreGivesTheStoresModes() throws {
        let storage = try filledStore(mode: 0o666)
        let keyFile = directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        let repo = directory.appending("repo")
        let repository = try BackupRepository.create(at: repo, key: .keyFile(keyFile))
        try storage.backup(to: repository)
        let id = try #require(try repository.snapshots().last?.id)
        #expect(try repository.snapshot(id).files.contains { $0.mode == 0o666 })
        let target = directory.appending("restored")
        let result = try ChildProcess.run(
            try TestExecutables.url(named: "strata"),
            ["restore", id, "--repo", repo, "--repo-key-file", keyFile, "--root", target],
            environment: ["STRATA_ROOT": "", "STRATA_SECRETS_KEY": testSecretsKeyHex])
        #expect(result.status == 0, "\(result.standardError)")
        try expectPrivate(target)
    }

    /// Every file under `target` is 0600 and every folder 0700.
    func expectPrivate(_ target: String) throws {
        let modes = try Self.modes(under: target)
        #expect(!modes.isEmpty)
        for (path, mode) in modes {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: target + "/" + path, isDirectory: &isFolder)
            #expect(mode == (isFolder.boolValue ? 0o700 : 0o600), "\(path): \(String(mode, radix: 8))")
        }
    }
}
