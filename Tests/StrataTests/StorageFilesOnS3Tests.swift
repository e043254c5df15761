import Foundation
import Strata
import StrataS3
import StrataTestSupport
import Testing

/// A store whose files tier lives on the test gateway (`Storage(filesURL:)`): a value that moves from files to
/// secrets leaves no version of its object on the server.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "").isEmpty,
        "STRATA_S3_URL is not set (Scripts/s3.sh start)"))
struct StorageFilesOnS3Tests {
    /// The gateway stays up for each test: its clients retry a few times only.
    let gateway = S3GatewayHold(.steady)

    @Test func aFileOnS3ThatBecomesACredentialLeavesNoVersionOnTheServer() throws {
        let directory = try TemporaryDirectory(prefix: "strata-storage-s3")
        let url =
            (ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "") + "storage-\(UUID().uuidString.lowercased())/"
        let storage = try Storage(root: directory.appending("store"), secretsKey: testSecretsKey, filesURL: url)
        let value = Data("PLAINTEXT-ON-S3-4b1d".utf8)
        try storage.put(Data("stays".utf8), for: "session-notes", as: descriptorForTier[.files]!)
        try storage.put(value, for: "session", as: descriptorForTier[.files]!)
        #expect(try storage.location(of: "session")?.tier == .files)
        #expect(try storage.backend(for: .files).name == "s3")
        let client = try S3Client(S3Configuration(url: url))
        #expect(try client.versions(of: "session").count == 1)

        try storage.put(value, for: "session", as: descriptorForTier[.secrets]!)

        #expect(try storage.data(for: "session") == value)
        #expect(try tiersHolding("session", in: storage) == [.secrets])
        #expect(try client.listObjectVersions().map(\.key) == ["session-notes"], "the object's versions are gone")
        #expect(try storage.data(for: "session-notes") == Data("stays".utf8))
        #expect(try storage.verifyCatalog().isSound)
    }
}
