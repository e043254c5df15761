import Foundation
import StrataCore
import StrataFiles
import StrataS3
import StrataTestSupport
import Testing

/// The S3 files engine against a real Ceph RADOS Gateway (`eval "$(Scripts/s3.sh start)"`), each test under its
/// own prefix. Serialized: one test kills the gateway.
@Suite(.serialized, .enabled(if: S3TestGateway.isConfigured, "STRATA_S3_URL is not set (Scripts/s3.sh start)"))
struct S3FileEngineTests {
    /// An engine under a fresh prefix; small parts so that a few MiB make a multipart upload.
    static func engine(_ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3FileEngine {
        try S3FileEngine(
            configuration: S3TestGateway.configuration {
                $0.partSize = 5 << 20
                $0.writeBufferLimit = 20 << 20
                adjust(&$0)
            })
    }

    static func bytes(_ count: Int, seed: UInt64 = 1) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        return Data(
            (0..<count).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    static func crc(_ data: Data) throws -> UInt32 {
        var writer = FileWriter(sink: { _ in })
        try writer.write(data)
        return writer.crc
    }

    @Test func aStreamedWriteReusesAFixedSetOfPartBuffers() throws {
        let engine = try Self.engine()
        let body = Self.bytes(9 * engine.partSize + 1000, seed: 7)
        for round in 1...2 {
            try engine.write("many-parts") { writer in
                var offset = 0
                while offset < body.count {
                    try writer.write(body[offset..<min(offset + (1 << 20), body.count)])
                    offset += 1 << 20
                }
            }
            // Ten parts, one buffer being filled and at most `partsInFlight` going up: never one buffer per part.
            #expect(engine.partBufferAllocations <= round * (engine.partsInFlight + 1))
        }
        #expect(try engine.read("many-parts") == body)
        // A small write does not hold a whole part.
        try engine.write("small") { try $0.write(Data("tiny".utf8)) }
        #expect(try engine.read("small") == Data("tiny".utf8))
    }

    /// A body of up to 64 KiB goes up from the heap: no part buffer is mapped (and unmapped) for it, which cost
    /// more than the rest of a 16 KiB write. A body that outgrows the heap mid-write moves into a part buffer with
    /// its first bytes, and one that outgrows a part becomes a multipart upload: each comes back whole and verifies.
    @Test func aSmallWriteMapsNoPartBufferAndALargerOneCarriesItsFirstBytesOver() throws {
        let engine = try Self.engine()
        try engine.write("small") { try $0.write(Self.bytes(16 << 10, seed: 3)) }
        try engine.write("at-the-limit") { try $0.write(Self.bytes(64 << 10, seed: 4)) }
        #expect(engine.partBufferAllocations == 0)
        #expect(try engine.read("small") == Self.bytes(16 << 10, seed: 3))
        #expect(try engine.read("at-the-limit") == Self.bytes(64 << 10, seed: 4))
        // Outgrown by one byte, and by a second write after a first one that fit.
        let over = Self.bytes((64 << 10) + 1, seed: 5)
        try engine.write("over") { try $0.write(over) }
        let halves = Self.bytes(100 << 10, seed: 6)
        try engine.write("halves") { writer in
            try writer.write(halves[..<(60 << 10)])
            try writer.write(halves[(60 << 10)...])
        }
        // Small first writes, then enough to need three parts.
        let long = Self.bytes(2 * engine.partSize + 12_345, seed: 8)
        try engine.write("long") { writer in
            try writer.write(long[..<1000])
            try writer.write(long[1000..<(1000 + (40 << 10))])
            try writer.write(long[(1000 + (40 << 10))...])
        }
        #expect(engine.partBufferAllocations > 0)
        #expect(try engine.read("over") == over)
        #expect(try engine.read("halves") == halves)
        #expect(try engine.read("long") == long)
        #expect(try engine.verify(prefix: "").isEmpty)
        #expect(try engine.metadata("halves")?.size == halves.count)
    }

    /// The bound the 256 MiB upload's peak memory relies on (the benchmark's ≤ 64 MiB): with the default
    /// configuration a streamed write of many parts holds at most 20 MiB of part buffers (5 MiB parts, 3 in flight
    /// and the one being filled), counted by the pool, not by the process's resident memory.
    @Test func aDefaultStreamedWriteHoldsAtMostTwentyMiBOfParts() throws {
        let engine = try S3FileEngine(configuration: S3TestGateway.configuration())
        #expect(engine.partSize * (engine.partsInFlight + 1) <= 20 << 20)
        let chunk = Self.bytes(1 << 20, seed: 11)
        let chunks = 2 * (engine.partsInFlight + 1) * engine.partSize / chunk.count + 1
        try engine.write("long") { writer in
            for _ in 0..<chunks { try writer.write(chunk) }
        }
        #expect(engine.largestPartMemory > 0)
        #expect(engine.largestPartMemory <= engine.partSize * (engine.partsInFlight + 1))
        #expect(engine.largestPartMemory <= 20 << 20)
        #expect(engine.partBufferAllocations <= engine.partsInFlight + 1)
        #expect(try engine.metadata("long")?.size == chunks * chunk.count)
    }

    @Test func smallAndMultipartWritesRecordChecksumSizeAndContentType() throws {
        let engine = try Self.engine()
        #expect(engine.partSize == 5 << 20)
        let small = Data("%PDF-1.7 tiny".utf8)
        try engine.write("docs/report.pdf") { try $0.write(small) }
        #expect(try engine.read("docs/report.pdf") == small)
        let smallInfo = try #require(try engine.metadata("docs/report.pdf"))
        #expect(smallInfo.size == small.count)
        #expect(smallInfo.contentType == "application/pdf")
        #expect(smallInfo.checksum == (try Self.crc(small)))
        // 17 MiB in uneven chunks: four parts, uploaded while the body writes on; the type sniffed from the bytes.
        let large = Data([0x89, 0x50, 0x4E, 0x47]) + Self.bytes((17 << 20) + 1234)
        try engine.write("media/picture") { writer in
            var offset = 0
            while offset < large.count {
                let end = min(offset + 300_001, large.count)
                try writer.write(large[offset..<end])
                offset = end
            }
        }
        #expect(try engine.read("media/picture") == large)
        let largeInfo = try #require(try engine.metadata("media/picture"))
        #expect(largeInfo.size == large.count)
        #expect(largeInfo.contentType == "image/png")
        #expect(largeInfo.checksum == (try Self.crc(large)))
        #expect(try engine.client.head("media/picture")?.etag.contains("-") == true)  // Multipart indeed.
        #expect(try engine.verify(prefix: "").isEmpty)
        #expect(try engine.client.listMultipartUploads().isEmpty)
        // Exactly one part's worth still goes up in one PUT.
        let exact = Self.bytes(5 << 20, seed: 2)
        try engine.write("exact") { try $0.write(exact) }
        #expect(try engine.client.head("exact")?.etag.contains("-") == false)
        #expect(try engine.read("exact") == exact)
    }

    @Test func aWriteWhoseBodyFailsLeavesTheOldObjectAndNoUpload() throws {
        struct Refusal: Error {}
        let engine = try Self.engine()
        try engine.write("keep") { try $0.write(Data("old".utf8)) }
        for size in [100, 12 << 20] {  // Before the first part, and after two parts went up.
            #expect(throws: Refusal.self) {
                try engine.write("keep") { writer in
                    try writer.write(Self.bytes(size))
                    throw Refusal()
                }
            }
            #expect(try engine.read("keep") == Data("old".utf8))
            #expect(throws: Refusal.self) {
                try engine.write("never") { writer in
                    try writer.write(Self.bytes(size))
                    throw Refusal()
                }
            }
            #expect(try engine.exists("never") == false)
            #expect(try engine.client.listMultipartUploads().isEmpty)
        }
    }

    @Test func streamedAndRangedReadsCutAtTheEnd() throws {
        let engine = try Self.engine()
        let content = Self.bytes(3_000_000)
        try engine.write("blob") { try $0.write(content) }
        var chunks: [Int] = []
        var collected = Data()
        let total = try engine.read("blob", range: nil, chunkSize: 1 << 20) { chunk in
            chunks.append(chunk.count)
            collected.append(contentsOf: chunk)
        }
        #expect(total == content.count)
        #expect(collected == content)
        #expect(chunks == [1 << 20, 1 << 20, content.count - (2 << 20)])
        collected = Data()
        let ranged = try engine.read("blob", range: 1000..<5_000_000, chunkSize: 4096) {
            collected.append(contentsOf: $0)
        }
        #expect(ranged == content.count - 1000)
        #expect(collected == content[1000...])
        #expect(try engine.read("blob", range: 3_000_000..<3_000_010, chunkSize: 10) { _ in } == 0)
        #expect(try engine.read("blob", range: 7..<7, chunkSize: 10) { _ in } == 0)
        try engine.write("empty") { _ in }
        #expect(try engine.read("empty") == Data())
        #expect(try engine.read("empty", range: 0..<10, chunkSize: 10) { _ in } == 0)
        let missing = #expect(throws: StorageError.self) {
            try engine.read("missing", range: 0..<10, chunkSize: 10) { _ in }
        }
        #expect(missing?.code == .notFound)
        #expect(try engine.read("missing") == nil)
        #expect(try engine.metadata("missing") == nil)
    }

    /// The gateway is killed while a read is under way and the object replaced before it comes back: the retried
    /// GET asks for the rest with `If-Match` on the first answer's tag, so the reader gets a conflict, never the
    /// first bytes of one version followed by the rest of another.
    @Test func aReadCutShortNeverMixesTwoVersions() throws {
        let gateway = S3GatewayHold(.outage)
        defer { withExtendedLifetime(gateway) {} }
        let engine = try Self.engine {
            $0.maxAttempts = 12
            $0.maxRetryDelay = 2
            $0.connectTimeout = 2
        }
        let first = Self.bytes(24 << 20, seed: 3)
        let second = Self.bytes(24 << 20, seed: 4)
        try engine.write("versioned") { try $0.write(first) }
        var delivered = Data()
        var replaced = false
        let error = #expect(throws: StorageError.self) {
            try engine.client.read("versioned", chunkSize: 1 << 20) { chunk in
                delivered.append(contentsOf: chunk)
                if !replaced {
                    replaced = true
                    try S3TestGateway.run("crash-gateway")
                    try S3TestGateway.run("resume-gateway")
                    try engine.write("versioned") { try $0.write(second) }
                }
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.s3?.serviceCode == "PreconditionFailed")
        #expect(delivered == first.prefix(delivered.count))
        #expect(try engine.read("versioned") == second)
    }

    @Test func updatesFromManyProcessesNeverLoseAnIncrement() throws {
        let engine = try Self.engine()
        let child = try TestExecutables.url(named: "strata-test-child")
        let url = "s3://\(engine.configuration.bucket)/\(engine.configuration.prefix)"
        let processes = 4
        let increments = 20
        let children = try (0..<processes).map { _ in
            try ChildProcess(child, ["s3-increment", url, "counter.txt", String(increments)])
        }
        for process in children {
            let result = process.wait()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "done\n")
        }
        let final = try #require(try engine.read("counter.txt"))
        #expect(String(decoding: final, as: UTF8.self) == String(processes * increments))
        #expect(try engine.metadata("counter.txt")?.checksum == (try Self.crc(final)))
    }

    @Test func appendsFromManyThreadsAllLandAndKeepTheChecksum() async throws {
        let engine = try Self.engine()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<6 {
                group.addTask {
                    for index in 0..<5 { try engine.append(Data("\(thread)-\(index);".utf8), to: "log.txt") }
                }
            }
            try await group.waitForAll()
        }
        let log = String(decoding: try #require(try engine.read("log.txt")), as: UTF8.self)
        let entries = Set(log.split(separator: ";").map(String.init))
        #expect(entries.count == 30)
        #expect(try engine.metadata("log.txt")?.checksum == (try Self.crc(Data(log.utf8))))
        #expect(try engine.metadata("log.txt")?.contentType == "text/plain")
    }

    @Test func copyMoveDeleteAndListKeepOddKeysExact() throws {
        let engine = try Self.engine()
        let odd = "a folder/ünïcödé + plus&=?#%.txt"
        let keys = [odd, "a folder/sub/deep.bin", "top+level", "x/y z"]
        for key in keys { try engine.write(key) { try $0.write(Data(key.utf8)) } }
        #expect(
            try engine.list(prefix: "", recursive: true) == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try engine.list(prefix: "a folder", recursive: false) == [odd])
        #expect(try engine.list(prefix: "a folder/", recursive: true) == ["a folder/sub/deep.bin", odd].sorted())
        #expect(try engine.list(prefix: "", recursive: false) == ["top+level"])
        #expect(try engine.list(prefix: "top+level", recursive: true).isEmpty)  // A file is not a folder.
        try engine.copy(odd, to: "copies/ü + ü")
        #expect(try engine.read("copies/ü + ü") == Data(odd.utf8))
        #expect(try engine.metadata("copies/ü + ü")?.checksum == (try Self.crc(Data(odd.utf8))))
        try engine.move("copies/ü + ü", to: "moved/ü + ü")
        #expect(try engine.exists("copies/ü + ü") == false)
        #expect(try engine.read("moved/ü + ü") == Data(odd.utf8))
        try engine.move("moved/ü + ü", to: "moved/ü + ü")
        #expect(try engine.exists("moved/ü + ü"))
        for operation in [{ try engine.copy("nothing", to: "b") }, { try engine.move("nothing", to: "b") }] {
            let error = #expect(throws: StorageError.self) { try operation() }
            #expect(error?.code == .notFound)
        }
        #expect(try engine.delete("moved/ü + ü"))
        #expect(try engine.delete("moved/ü + ü") == false)
    }

    /// Without `encoding-type=url` a key holding a character XML 1.0 cannot carry broke the whole listing.
    @Test func listingSurvivesKeysXMLCannotCarry() throws {
        let engine = try Self.engine()
        let awkward = ["ctrl\u{1}key", "tab\there", "new\nline", "plus+and space"]
        for key in awkward { try engine.client.put(key, bytes: Array(key.utf8)) }
        let listed = try engine.client.list().objects.map(\.key)
        #expect(listed == awkward.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for key in awkward { #expect(try engine.client.data(for: key) == Array(key.utf8)) }
    }

    @Test func aPrefixConfinesEverything() throws {
        let one = try Self.engine()
        let two = try Self.engine()
        try one.write("shared-name") { try $0.write(Data("one".utf8)) }
        try two.write("shared-name") { try $0.write(Data("two".utf8)) }
        #expect(try one.read("shared-name") == Data("one".utf8))
        #expect(try one.list(prefix: "", recursive: true) == ["shared-name"])
        let upload = try two.client.createMultipartUpload("pending")
        #expect(try one.removeLeftovers(olderThan: 0) == 0)
        #expect(try two.client.listMultipartUploads().map(\.uploadID) == [upload])
        #expect(try two.removeLeftovers(olderThan: 3600) == 0)  // Too young: a writer may still complete it.
        #expect(try two.removeLeftovers(olderThan: 0) == 1)
        #expect(try two.client.listMultipartUploads().isEmpty)
    }

    @Test func verifyFindsChangedAndUnrecordedObjects() throws {
        let engine = try Self.engine()
        try engine.write("good") { try $0.write(Data("fine".utf8)) }
        try engine.write("changed") { try $0.write(Data("before".utf8)) }
        let recorded = try #require(try engine.client.head("changed")).metadata
        try engine.client.put("changed", bytes: Array("after!".utf8), metadata: recorded)
        try engine.client.put(
            "resized", bytes: Array("abc".utf8), metadata: ["strata-crc32": "00000000", "strata-size": "9"])
        try engine.client.put("foreign", bytes: [1, 2, 3])
        let problems = try engine.verify(prefix: "")
        #expect(
            Set(problems.map { "\($0.key) \($0.kind.rawValue)" }) == [
                "changed checksum-mismatch", "resized size-mismatch", "foreign unrecorded",
            ])
        #expect(try engine.metadata("changed")?.checksum != nil)
        #expect(try engine.metadata("resized")?.checksum == nil)  // The recorded size is not the object's.
    }

    /// The gateway killed mid-upload (no retries): the write fails with a typed error, no object appears, and the
    /// upload the server kept is gone after `removeLeftovers`.
    @Test func theGatewayKilledMidWriteLeavesNoObjectAndCleanupRemovesTheUpload() throws {
        let gateway = S3GatewayHold(.outage)
        defer { withExtendedLifetime(gateway) {} }
        let engine = try Self.engine {
            $0.maxAttempts = 1
            $0.connectTimeout = 2
            $0.concurrency = 1
        }
        let part = Self.bytes(5 << 20)
        let error = #expect(throws: StorageError.self) {
            try engine.write("interrupted") { writer in
                for index in 0..<6 {
                    if index == 3 {
                        // Parts go up on threads of their own: wait until the server holds the upload, so that the
                        // kill leaves one behind (the case under test), then kill.
                        var polls = 0
                        while try engine.client.listMultipartUploads().isEmpty, polls < 600 {
                            polls += 1
                            Thread.sleep(forTimeInterval: 0.05)
                        }
                        try S3TestGateway.run("crash-gateway")
                    }
                    try writer.write(part)
                }
            }
        }
        try S3TestGateway.run("resume-gateway")
        #expect(error?.code == .connectionFailed)
        #expect(try engine.exists("interrupted") == false)
        #expect(try engine.client.listMultipartUploads().count == 1)
        #expect(try engine.removeLeftovers(olderThan: 0) == 1)
        #expect(try engine.client.listMultipartUploads().isEmpty)
        #expect(try engine.exists("interrupted") == false)
    }
}

@Suite struct S3FileEngineConfigurationTests {
    static let environment = [
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "very-secret-key", "AWS_SESSION_TOKEN": "session-token-secret",
    ]

    @Test func theURLAndTheStandardVariablesConfigureItAndTheLocationHoldsNoSecret() throws {
        let engine = try S3FileEngine(url: "s3://media/exports", environment: Self.environment)
        #expect(engine.name == "s3")
        #expect(engine.configuration.bucket == "media")
        #expect(engine.configuration.prefix == "exports/")
        #expect(engine.configuration.region == "eu-west-3")
        #expect(engine.location == "s3://media/exports/ at http://127.0.0.1:9 (eu-west-3)")
        let shown = engine.location + engine.concurrencyGuarantee + engine.layout.map(\.description).joined()
        for secret in ["AKIDEXAMPLE", "very-secret-key", "session-token-secret"] { #expect(!shown.contains(secret)) }
        #expect(engine.layout.first?.location == "http://127.0.0.1:9/media/exports/")
    }

    @Test func partsInMemoryStayWithinTheWriteBufferLimit() throws {
        let mebibyte: Int64 = 1 << 20
        let cases: [(limit: Int64, partSize: Int64, concurrency: Int)] = [
            (32 * mebibyte, 16 * mebibyte, 4), (64 * mebibyte, 16 * mebibyte, 4), (16 * mebibyte, 8 * mebibyte, 8),
            (256 * mebibyte, 64 * mebibyte, 2),
        ]
        for (limit, partSize, concurrency) in cases {
            var configuration = try S3Configuration(url: "s3://media/", environment: Self.environment)
            configuration.writeBufferLimit = limit
            configuration.partSize = partSize
            configuration.concurrency = concurrency
            let engine = try S3FileEngine(configuration: configuration)
            #expect(engine.partSize >= 5 << 20)
            #expect(engine.partsInFlight >= 1 && engine.partsInFlight <= concurrency)
            // The part being filled and those in flight.
            #expect(Int64(engine.partSize * (engine.partsInFlight + 1)) <= max(limit, 10 * mebibyte))
        }
    }
}
