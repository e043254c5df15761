import Foundation
import StrataCore
import StrataFiles
import StrataS3
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A multipart write is completed under a staging key, copied into place with its checksum in one server-side copy,
/// then the staged object deleted: a writer killed at any step leaves the old file or the new one with its
/// checksum, never one `verify` calls `unrecorded`; what it leaves behind is invisible and `removeLeftovers` sweeps it.
@Suite(.enabled(if: S3TestGateway.isConfigured, "STRATA_S3_URL is not set (Scripts/s3.sh start)"))
struct S3StagedWriteTests {
    /// A child writes 12 MiB of 2s over a 6 MiB file of 1s (both multipart, parts of 5 MiB) and is killed with
    /// SIGKILL when it reaches `step`: its parts all up (`uploaded`), the upload completed under the staging key
    /// (`staged`), the staged object copied into place (`placed`).
    @Test(arguments: ["uploaded", "staged", "placed"])
    func aWriterKilledAroundItsCompletionLeavesTheOldFileOrTheNewOneWithItsChecksum(step: String) throws {
        let engine = try S3FileEngineTests.engine()
        let store = FileStore(engine: engine)
        let old = Data(repeating: 1, count: 6 << 20)
        let new = Data(repeating: 2, count: 12 << 20)
        try store.write(old, to: "media/big.bin")
        try store.write(Data("small".utf8), to: "small.txt")
        #expect(try engine.client.list(prefix: ".strata-").objects.isEmpty, "the write cleaned up after itself")

        let url = "s3://\(engine.configuration.bucket)/\(engine.configuration.prefix)"
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"),
            ["s3-write-stop", url, "media/big.bin", String(new.count), "2", step])
        defer {
            child.kill()
            _ = child.wait()
        }
        try child.waitForLine(timeout: 180) { $0 == "at \(step)" }
        child.kill(SIGKILL)
        #expect(child.wait().wasSignalled)

        // The file is whole and recorded: the old one until the copy, the new one from it.
        let expected = step == "placed" ? new : old
        #expect(try store.read("media/big.bin") == expected)
        #expect(try store.metadata("media/big.bin")?.checksum == (try S3FileEngineTests.crc(expected)))
        #expect(try store.verify().isEmpty)
        // What the writer left (an open upload before the completion, a staged object after it) is in no listing.
        let uploads = try engine.client.listMultipartUploads()
        let staged = try engine.client.list(prefix: ".strata-").objects
        #expect(uploads.count == (step == "uploaded" ? 1 : 0))
        #expect(staged.count == (step == "uploaded" ? 0 : 1))
        #expect(uploads.allSatisfy { $0.key.hasPrefix(".strata-upload/") })
        #expect(try store.list() == ["media/big.bin", "small.txt"])
        #expect(try store.list(prefix: "", recursive: false) == ["small.txt"])
        if let leftover = staged.first {
            let refused = #expect(throws: StorageError.self) { try store.read(leftover.key) }
            #expect(refused?.code == .invalidKey)
        }

        // The cleanup leaves a young leftover (its writer may be alive) and sweeps an old one.
        #expect(try store.removeLeftovers(olderThan: 3600) == 0)
        #expect(try store.removeLeftovers(olderThan: 0) == 1)
        #expect(try engine.client.listMultipartUploads().isEmpty)
        #expect(try engine.client.list(prefix: ".strata-").objects.isEmpty)
        #expect(try store.read("media/big.bin") == expected)
        #expect(try store.verify().isEmpty)
    }

    /// Above ``S3Configuration/copyLimit`` (here 5 MiB instead of S3's 5 GiB) the staged object is copied into
    /// place part by part, the checksum set on the new upload: the same file, recorded, with no upload or staged
    /// object left.
    @Test func aWriteAboveTheCopyLimitIsCopiedIntoPlacePartByPart() throws {
        let engine = try S3FileEngineTests.engine { $0.copyLimit = 5 << 20 }
        let body = S3FileEngineTests.bytes((12 << 20) + 1, seed: 21)
        try engine.write("large") { try $0.write(body) }
        #expect(try engine.read("large") == body)
        let info = try #require(try engine.client.head("large"))
        #expect(try engine.metadata("large")?.checksum == (try S3FileEngineTests.crc(body)))
        #expect(try engine.verify(prefix: "").isEmpty)
        #expect(try engine.client.listMultipartUploads().isEmpty)
        #expect(try engine.client.list(prefix: ".strata-").objects.isEmpty)
        // The client's copy by size: a source changed meanwhile fails its condition and leaves the destination.
        let error = #expect(throws: StorageError.self) {
            try engine.client.copy(
                "large", size: info.size, to: "other", precondition: .ifMatch("0123456789abcdef0123456789abcdef-3"),
                contentType: nil, metadata: [:])
        }
        #expect(error?.code == .conflict)
        #expect(error?.s3?.serviceCode == "PreconditionFailed")
        #expect(try engine.exists("other") == false)
        #expect(try engine.client.listMultipartUploads().isEmpty)
        // Pinned to the right tag, the parts make the same object, with the metadata given.
        let copied = try engine.client.copy(
            "large", size: info.size, to: "other", precondition: .ifMatch(info.etag), contentType: "video/mp4",
            metadata: ["origin": "camera-2"])
        #expect(copied.etag.hasSuffix("-3"), "three copied parts: \(copied.etag)")
        #expect(try engine.read("other") == body)
        let other = try #require(try engine.client.head("other"))
        #expect(other.metadata == ["origin": "camera-2"])
        #expect(other.contentType == "video/mp4")
    }
}

/// How a server-side copy is split, without a gateway.
@Suite struct S3CopyRangeTests {
    /// The boundary: one CopyObject up to the limit, parts of the limit above it, larger parts when 10,000 of the
    /// limit cannot hold the object, and a typed error past 10,000 parts of 5 GiB.
    @Test func copiesSplitIntoPartsOnlyAboveTheLimit() throws {
        let mebibyte: Int64 = 1 << 20
        let limit = 5 * mebibyte
        #expect(try S3Client.copyRanges(size: 0, limit: limit, key: "k") == [0..<0])
        #expect(try S3Client.copyRanges(size: limit, limit: limit, key: "k") == [0..<limit])
        #expect(try S3Client.copyRanges(size: limit + 1, limit: limit, key: "k") == [0..<limit, limit..<(limit + 1)])
        let three = try S3Client.copyRanges(size: 3 * limit, limit: limit, key: "k")
        #expect(three == [0..<limit, limit..<(2 * limit), (2 * limit)..<(3 * limit)])
        let gibibytes5: Int64 = 5 << 30
        #expect(try S3Client.copyRanges(size: gibibytes5, limit: gibibytes5, key: "k").count == 1)
        #expect(try S3Client.copyRanges(size: gibibytes5 + 1, limit: gibibytes5, key: "k").count == 2)
        // 10,000 parts of 5 MiB hold 50,000 MiB: one byte more makes the parts larger, never more numerous.
        let many = try S3Client.copyRanges(size: 10_000 * limit + 1, limit: limit, key: "k")
        #expect(many.count <= 10_000)
        #expect(many.first?.lowerBound == 0 && many.last?.upperBound == 10_000 * limit + 1)
        #expect(zip(many, many.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        let tooLarge = #expect(throws: StorageError.self) {
            try S3Client.copyRanges(size: 10_000 * gibibytes5 + 1, limit: gibibytes5, key: "k")
        }
        #expect(tooLarge?.code == .tooLarge)
        #expect(tooLarge?.key == "k")
        // A copy limit below S3's smallest part cannot work.
        var configuration = try S3Configuration(
            url: "s3://media/", environment: S3FileEngineConfigurationTests.environment)
        configuration.copyLimit = limit - 1
        let refused = #expect(throws: StorageError.self) { try S3Client(configuration) }
        #expect(refused?.code == .invalidArgument)
    }
}
