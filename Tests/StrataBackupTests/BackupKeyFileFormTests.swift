import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataTestSupport
import Testing

/// Issue 36 item 10: a repository's key file takes the forms a keyring's key file takes (32 random bytes, 64 hex
/// characters, base64), so one key file serves both; 32 characters of text are refused, as the secrets tier does.
@Suite("Backup repository: the forms of a key file")
struct BackupKeyFileFormTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-backup-key-form") }

    static let key: [UInt8] = (0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }

    func keyFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    @Test func hexAndBase64KeyFilesCreateAndOpenTheRepositoryTheirRawBytesOpen() throws {
        let hex = Array((Self.key.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
        let hexFile = try keyFile("hex.key", hex)
        let repository = directory.appending("repo")
        // Made with the hex form (refused before: "a key file holds exactly 32 bytes").
        _ = try BackupRepository.create(at: repository, key: .keyFile(hexFile))
        let base64 = Array(Data(Self.key).base64EncodedString().utf8)
        for (name, bytes) in [("raw", Self.key), ("hex", hex), ("base64", base64)] {
            _ = try BackupRepository.open(at: repository, key: .keyFile(try keyFile("open-\(name).key", bytes)))
        }
        // The same file opens a keyring: one key for both.
        let paths = try StoragePaths(root: directory.appending("store"))
        let store = try SecretStore(keyring: "default", paths: paths, unlockingWith: .keyFile(hexFile))
        try store.set("v", service: "s", account: "a")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "v")
    }

    @Test func textAndShortFilesAreRefusedNamingTheFormsAndThePath() throws {
        let text = try keyFile("text.key", Array("passwordpasswordpasswordpassword".utf8))
        let refused = #expect(throws: StorageError.self) {
            try BackupRepository.create(at: directory.appending("text-repo"), key: .keyFile(text))
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.path == text)
        #expect(refused?.tier == nil)
        #expect(refused?.message.contains("text is never taken as key bytes") == true, "\(refused?.message ?? "")")
        #expect(refused?.recovery?.contains("repository") == true, "\(refused?.recovery ?? "")")
        let short = try keyFile("short.key", [1, 2, 3])
        let tooShort = #expect(throws: StorageError.self) {
            try BackupRepository.create(at: directory.appending("short-repo"), key: .keyFile(short))
        }
        #expect(tooShort?.code == .invalidArgument)
        #expect(tooShort?.message.contains("64 hex characters or base64") == true, "\(tooShort?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("text-repo") + "/config"))
    }
}
