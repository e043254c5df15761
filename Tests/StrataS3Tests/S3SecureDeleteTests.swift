import Foundation
import StrataCore
import StrataFiles
import StrataS3
import StrataTestSupport
import Testing

/// `deleteSecurely` on S3 removes every version of the object the server keeps and the uploads under way to it,
/// on an unversioned bucket and on one with versioning enabled; the keys it is a prefix of are untouched.
@Suite(.enabled(if: S3TestGateway.isConfigured, "STRATA_S3_URL is not set (Scripts/s3.sh start)"))
struct S3SecureDeleteTests {
    /// An engine on a fresh bucket with versioning enabled (Ceph 16.2 honours PutBucketVersioning).
    static func versionedEngine() throws -> S3FileEngine {
        let engine = try S3FileEngineTests.engine {
            $0.bucket = "strata-versioned-\(UUID().uuidString.lowercased().prefix(12))"
            $0.prefix = ""
        }
        try engine.client.createBucket()
        #expect(try !engine.client.isVersioningEnabled())
        try engine.client.setVersioning(true)
        #expect(try engine.client.isVersioningEnabled())
        return engine
    }

    /// Starts a multipart upload of `key` with one part, left open.
    static func openUpload(_ engine: S3FileEngine, _ key: String) throws {
        let upload = try engine.client.createMultipartUpload(key)
        _ = try engine.client.uploadPart(key, uploadID: upload, number: 1, bytes: Array(repeating: 7, count: 1000))
    }

    @Test func anUnversionedObjectAndItsUploadsAreRemovedAndItsPrefixNeighboursKept() throws {
        let engine = try S3FileEngineTests.engine()
        #expect(try !engine.client.isVersioningEnabled())
        try engine.write("docs/a") { try $0.write(Data("secret".utf8)) }
        try engine.write("docs/ab") { try $0.write(Data("neighbour".utf8)) }
        try engine.write("docs/a/b") { try $0.write(Data("below".utf8)) }
        try Self.openUpload(engine, "docs/a")
        try Self.openUpload(engine, "docs/ab")
        #expect(try engine.client.versions(of: "docs/a").map(\.versionID) == ["null"])

        #expect(try engine.deleteSecurely("docs/a"))

        #expect(try engine.client.versions(of: "docs/a").isEmpty)
        #expect(try engine.read("docs/a") == nil)
        #expect(try engine.client.listMultipartUploads().map(\.key) == ["docs/ab"])
        #expect(try engine.read("docs/ab") == Data("neighbour".utf8))
        #expect(try engine.read("docs/a/b") == Data("below".utf8))
        #expect(try !engine.deleteSecurely("docs/a"), "nothing left: no file")
        #expect(try !engine.deleteSecurely("docs/never"))
    }

    @Test func everyVersionAndDeleteMarkerOfAVersionedObjectIsRemoved() throws {
        let engine = try Self.versionedEngine()
        for version in 1...3 { try engine.write("a") { try $0.write(Data("secret \(version)".utf8)) } }
        try engine.write("ab") { try $0.write(Data("neighbour 1".utf8)) }
        #expect(try engine.delete("ab"))
        try engine.write("ab") { try $0.write(Data("neighbour 2".utf8)) }
        let versions = try engine.client.versions(of: "a")
        #expect(versions.count == 3 && versions.allSatisfy { !$0.isDeleteMarker && $0.versionID != "null" })
        #expect(try engine.client.versions(of: "ab").count == 3, "two versions and a delete marker")
        // A plain delete keeps the versions (a marker hides them): why the secure one exists.
        try engine.write("plain") { try $0.write(Data("secret".utf8)) }
        #expect(try engine.delete("plain"))
        #expect(try engine.client.versions(of: "plain").map(\.isDeleteMarker) == [true, false])

        #expect(try engine.deleteSecurely("a"))
        #expect(try !engine.deleteSecurely("plain"), "deleted already: no file, but its versions go")

        let left = try engine.client.listObjectVersions()
        #expect(!left.contains { $0.key == "a" || $0.key == "plain" }, "\(left)")
        #expect(left.filter { $0.key == "ab" }.count == 3)
        #expect(try engine.read("ab") == Data("neighbour 2".utf8))
        #expect(try engine.read("a") == nil)
    }

    /// Writers of `a` killed mid-write leave an open upload (all parts up) and a staged object (completed, not yet
    /// copied into place), both under `a`'s staging folder: erasing `a` aborts the one and deletes every version of
    /// the other, on a versioned bucket; a neighbour's leftovers stay.
    @Test func aKilledWritersStagedUploadAndObjectAreErasedWithTheKey() throws {
        let engine = try Self.versionedEngine()
        let url = "s3://\(engine.configuration.bucket)/\(engine.configuration.prefix)"
        let child = try TestExecutables.url(named: "strata-test-child")
        for (key, step) in [("a", "uploaded"), ("a", "staged"), ("ab", "staged")] {
            let writer = try ChildProcess(child, ["s3-write-stop", url, key, String(6 << 20), "9", step])
            defer {
                writer.kill()
                _ = writer.wait()
            }
            try writer.waitForLine(timeout: 180) { $0 == "at \(step)" }
        }
        #expect(try engine.client.listMultipartUploads().count == 1)
        #expect(try engine.client.listObjectVersions(prefix: ".strata-").count == 2)

        #expect(try !engine.deleteSecurely("a"), "no file: the writers never put one in place")

        #expect(try engine.client.listMultipartUploads().isEmpty)
        let left = try engine.client.listObjectVersions(prefix: ".strata-")
        #expect(left.count == 1, "the neighbour's staged object only: \(left)")
        #expect(try engine.removeLeftovers(olderThan: 0) == 1)
    }

    /// Through the store and the conformance check's face: `FileStore.deleteSecurely` reaches the engine.
    @Test func theStoreErasesThroughTheEngine() throws {
        let engine = try Self.versionedEngine()
        let store = FileStore(engine: engine)
        try store.write(Data("one".utf8), to: "k")
        try store.write(Data("two".utf8), to: "k")
        #expect(try store.deleteSecurely("k"))
        #expect(try engine.client.listObjectVersions().isEmpty)
    }
}
