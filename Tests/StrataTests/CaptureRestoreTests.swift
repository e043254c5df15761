import Foundation
import Strata
import StrataTestSupport
import Testing

/// Capturing a whole store into a `CaptureSink` and restoring it: every tier, the catalog, what is left out, and
/// the all-or-nothing move into place.
@Suite("Storage: capture and restore")
struct CaptureRestoreTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-capture")
    }

    /// Puts one value in each tier, and a file with a known modification time.
    func filledStore() throws -> Storage {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        try storage.set("dark", for: "theme")
        return storage
    }

    @Test func restoredStoreHoldsEveryTierAndVerifies() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        let report = try storage.capture(into: capture)
        #expect(report.omissions.isEmpty)
        let paths = Set(capture.files.map(\.path))
        #expect(paths.contains("strata.conf") || !FileManager.default.fileExists(atPath: root + "/strata.conf"))
        #expect(paths.isSuperset(of: ["catalog/log", "defaults/standard.plist", "records/main.sqlite"]))
        #expect(paths.contains("secrets/default/items.manifest"), "the small secrets' home")
        #expect(paths.contains("secrets/default/keyring.json"))
        // The SQLite file is a copy, never the live file: no WAL or lock files are captured.
        #expect(!paths.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix(".lock") })

        let target = directory.appending("restored")
        let restored = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(restored.verifiedKeys == 5)
        #expect(restored.uncheckedKeys.isEmpty)
        let copy = try openStorage(target)
        for tier in Tier.allCases {
            #expect(try copy.data(for: "k/\(tier)") == Data("value of \(tier)".utf8))
            #expect(try copy.location(of: "k/\(tier)")?.tier == tier)
        }
        #expect(try copy.value(String.self, for: "theme") == "dark")
        #expect(try copy.verifyCatalog().isSound)
        // No staging folder is left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    /// A file keeps its checksum attribute and its real modification time, so a repository can skip it unchanged.
    @Test func fileKeepsAttributesAndModificationTime() throws {
        let storage = try filledStore()
        let key = "k/\(Tier.files)"
        let before = try #require(try storage.files.metadata(key))
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let captured = try #require(capture.files.first { $0.path == "files/" + key })
        #expect(captured.extendedAttributes.keys.contains("user.strata.integrity"))
        let target = directory.appending("restored")
        try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        let after = try #require(try openStorage(target).files.metadata(key))
        #expect(after.modificationDate == before.modificationDate)
        #expect(after.checksum == before.checksum && after.checksum != nil)
        let mode = try FileManager.default.attributesOfItem(atPath: target + "/files/" + key)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A `ThisDeviceOnly` secret is reported, not captured, and the restored keyring (its manifest still naming the
    /// item) reads as if the item never existed.
    @Test func thisDeviceOnlySecretIsReportedNotCaptured() throws {
        let storage = try filledStore()
        try storage.secrets.set(
            Secret("bound"), service: "vpn", account: "device", accessibility: .afterFirstUnlockThisDeviceOnly)
        try storage.secrets.set(Secret("portable"), service: "vpn", account: "user", accessibility: .afterFirstUnlock)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        let report = try storage.capture(into: capture)
        #expect(report.omissions.count == 1)
        let omission = try #require(report.omissions.first)
        #expect(omission.tier == .secrets && omission.key == "vpn/device" && omission.reason == .thisDeviceOnly)
        #expect(!capture.files.contains { $0.path == omission.path })
        // The sealed bytes of what was captured do not contain the value.
        for file in capture.files {
            let bytes = try #require(capture.contents(of: file.path))
            #expect(bytes.range(of: Data("bound".utf8)) == nil)
        }

        let target = directory.appending("restored")
        let restored = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(restored.omissions == [omission])
        let copy = try openStorage(target)
        #expect(try copy.secrets.get(service: "vpn", account: "device") == nil)
        #expect(try copy.secrets.get(service: "vpn", account: "user")?.data == Data("portable".utf8))
        // The keyring stays writable: the item can be stored again past its manifest entry.
        try copy.secrets.set(Secret("again"), service: "vpn", account: "device", accessibility: .afterFirstUnlock)
        #expect(try copy.secrets.get(service: "vpn", account: "device")?.data == Data("again".utf8))
    }

    /// Secrets are captured sealed and need the same key provider where they are restored: a passphrase keyring
    /// restores with its passphrase; without a key its keys are checked for presence only.
    @Test func secretsNeedTheSameKeyProvider() throws {
        let passphrase = KeyProvider.passphrase("correct horse battery staple")
        let storage = try Storage(root: root, secretsKey: passphrase)
        try storage.put(Data("tok".utf8), for: "api/token", as: descriptorForTier[.secrets]!)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)

        let locked = try Storage.restore(from: capture, to: directory.appending("unkeyed"), secretsKey: nil)
        #expect(locked.uncheckedKeys == ["api/token"])
        let target = directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: passphrase)
        #expect(report.verifiedKeys == 1)
        #expect(try Storage(root: target, secretsKey: passphrase).data(for: "api/token") == Data("tok".utf8))
        #expect(throws: StorageError.self) {
            _ = try Storage(root: target, secretsKey: .passphrase("wrong")).data(for: "api/token")
        }
    }

    /// The target must be absent or an empty folder; a store there is never overwritten.
    @Test func restoreRefusesANonEmptyTarget() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, to: root, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .conflict)
        #expect(try storage.data(for: "k/records") == Data("value of records".utf8))
        let empty = directory.appending("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        try Storage.restore(from: capture, to: empty, secretsKey: testSecretsKey)
        #expect(try openStorage(empty).data(for: "k/files") == Data("value of files".utf8))
    }

    /// A folder holding only a file whose name is not UTF-8 is not empty: the restore refuses it and leaves the
    /// file (a listing that leaves such names out must not make the folder look empty).
    @Test func aTargetHoldingOnlyANameThatIsNotUTF8IsNotEmpty() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let target = directory.appending("foreign")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let name = Array((target + "/").utf8) + [0x66, 0xFF, 0]
        let fd = name.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        #expect(fd >= 0)
        close(fd)
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .conflict, "\(String(describing: error))")
        #expect(
            name.withUnsafeBufferPointer {
                access(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), F_OK)
            } == 0)
    }

    /// One key, or a prefix, restored into an existing store, into the tier the capture placed it in.
    @Test func restoresKeysIntoAnExistingStore() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        try storage.put(Data("changed".utf8), for: "k/records", as: descriptorForTier[.records]!)
        try storage.put(Data("moved".utf8), for: "k/files", as: descriptorForTier[.defaults]!)
        try storage.put(Data("kept".utf8), for: "other", as: descriptorForTier[.records]!)

        #expect(
            try storage.restore(keysWithPrefix: "k/records", from: capture, secretsKey: testSecretsKey) == ["k/records"]
        )
        #expect(try storage.data(for: "k/records") == Data("value of records".utf8))
        #expect(try storage.data(for: "k/files") == Data("moved".utf8))
        let all = try storage.restore(keysWithPrefix: "k/", from: capture, secretsKey: testSecretsKey)
        #expect(all.count == 4)
        #expect(try storage.data(for: "k/files") == Data("value of files".utf8))
        #expect(try tiersHolding("k/files", in: storage) == [.files])
        #expect(try storage.data(for: "other") == Data("kept".utf8))
        #expect(try storage.verifyCatalog().isSound)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    /// Files are copied ahead of the capture's instant, without holding writers. Changes made meanwhile — a file
    /// moved to defaults, a preference moved to files, a file rewritten, a file deleted — are in the capture as at
    /// the instant: the restored store holds each key once, in the tier its captured catalog names, with its value
    /// at the instant, and verifies.
    @Test func changesWhileFilesAreCopiedAheadAreCapturedAsAtTheInstant() throws {
        let storage = try filledStore()
        let files = descriptorForTier[.files]!
        for name in ["a-leaves", "b-rewritten", "c-deleted", "d-kept"] {
            try storage.put(Data("first \(name)".utf8), for: name, as: files)
        }
        try storage.put(Data("first e-arrives".utf8), for: "e-arrives", as: descriptorForTier[.defaults]!)
        let folder = try FolderCapture(folder: directory.appending("capture"))
        let sink = HookedCaptureSink(folder, after: "files/k/files") {
            try storage.put(Data("moved a-leaves".utf8), for: "a-leaves", as: descriptorForTier[.defaults]!)
            try storage.put(Data("second b-rewritten, longer".utf8), for: "b-rewritten", as: files)
            try storage.delete("c-deleted")
            try storage.put(Data("moved e-arrives".utf8), for: "e-arrives", as: files)
        }
        let report = try storage.capture(into: sink)
        #expect(report.withdrawnPaths == ["files/a-leaves", "files/b-rewritten", "files/c-deleted"])

        let target = directory.appending("restored")
        try Storage.restore(from: try FolderCapture(folder: folder.folder), to: target, secretsKey: testSecretsKey)
        let restored = try openStorage(target)
        #expect(try restored.verifyCatalog().isSound)
        let expected: [(String, String?, [Tier])] = [
            ("a-leaves", "moved a-leaves", [.defaults]), ("b-rewritten", "second b-rewritten, longer", [.files]),
            ("c-deleted", nil, []), ("d-kept", "first d-kept", [.files]), ("e-arrives", "moved e-arrives", [.files]),
        ]
        for (key, value, tiers) in expected {
            #expect(try restored.data(for: key) == value.map { Data($0.utf8) }, "\(key)")
            #expect(try tiersHolding(key, in: restored) == tiers, "\(key)")
        }
    }

    /// A description that withdraws a file the capture does not hold is a damaged capture, named as such.
    @Test func withdrawingAFileTheCaptureLacksIsCorrupt() throws {
        let storage = try filledStore()
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        let described = try #require(folder.files.firstIndex { $0.path == ".strata-capture.json" })
        let text = String(decoding: try #require(folder.contents(of: ".strata-capture.json")), as: UTF8.self)
        let hostile = Array(
            text.replacingOccurrences(of: "\"withdrawn\":[]", with: "\"withdrawn\":[\"files/nope\"]").utf8)
        #expect(hostile.count != text.utf8.count)
        let forged = try FolderCapture(folder: directory.appending("forged"))
        for (index, file) in folder.files.enumerated() where index != described {
            try forged.add(file, contents: Array(try #require(folder.contents(of: file.path))))
        }
        var description = folder.files[described]
        description.size = Int64(hostile.count)
        try forged.add(description, contents: hostile)
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: forged, to: directory.appending("restored"), secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt && error?.path == "files/nope")
    }

    /// A capture holding a PostgreSQL records export beside the SQLite file is damaged or forged: refused, typed,
    /// naming the other file, before anything is written.
    @Test func aPostgresExportBesideTheSQLiteFileIsCorrupt() throws {
        let storage = try filledStore()
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        let export = Array("{}".utf8)
        try folder.add(
            CapturedFile(
                path: "records/postgres/store.json", tier: .records, mode: 0o600, size: Int64(export.count),
                modificationTime: .init(seconds: 0, nanoseconds: 0)), contents: export)
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: folder, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt && error?.path == "records/main.sqlite")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    /// A process without the secrets key captures the keyring all the same: its files are copied sealed.
    @Test func capturesALockedKeyring() throws {
        _ = try filledStore()
        let locked = try Storage(root: root, secretsKey: nil)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try locked.capture(into: capture)
        // A small secret lives in the keyring's manifest (see SecretsConfiguration.inlineItemLimit).
        #expect(capture.files.contains { $0.path == "secrets/default/items.manifest" })
        let target = directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 5)
        #expect(try openStorage(target).data(for: "k/secrets") == Data("value of secrets".utf8))
    }

    /// A target whose last name starts with a combining mark (`new/\u{301}x`: the `/` and the mark are one
    /// `Character`) is restored where it says: the staging folder and the move split the path by bytes, as the
    /// target's check does (the staging folder was named from a `Character` split, and the restore failed).
    @Test func aTargetNamedWithACombiningMarkIsRestored() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        try FileManager.default.createDirectory(atPath: directory.appending("new"), withIntermediateDirectories: false)
        let target = directory.appending("new") + "/\u{301}x"
        try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(try openStorage(target).data(for: "k/files") == Data("value of files".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.appending("new"))
        #expect(left == ["\u{301}x"])
    }
}
