import Foundation
import StrataCore
import Testing

@testable import StrataS3

/// Known answers for the signing: AWS's published Signature Version 4 examples for S3 (the example key pair and
/// the example bucket, 24 May 2013), and the SHA-256 and HMAC-SHA-256 vectors of FIPS 180-2 and RFC 4231.
@Suite struct S3SignerTests {
    static let example = S3Signer(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let exampleDate = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
    static let host = ("host", "examplebucket.s3.amazonaws.com")

    static func authorization(_ headers: [(String, String)]) -> String {
        headers.first { $0.0 == "Authorization" }?.1 ?? ""
    }

    @Test func sha256AndHMACMatchTheirStandardVectors() throws {
        #expect(try S3Signer.hexSHA256([]) == S3Signer.emptyPayloadHash)
        #expect(
            try S3Signer.hexSHA256(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // RFC 4231, test case 2: a key shorter than the block.
        #expect(
            Hex.encode(try S3Digest.hmacSHA256(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // RFC 4231, test case 6: a key longer than the block (131 bytes of 0xaa).
        #expect(
            Hex.encode(
                try S3Digest.hmacSHA256(
                    Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                    key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // The same digest fed in pieces as in one go.
        let whole = Array("The quick brown fox jumps over the lazy dog".utf8)
        let pieces = try whole.withUnsafeBytes { bytes in
            try S3Digest.sha256 { feed in
                feed(UnsafeRawBufferPointer(rebasing: bytes[0..<5]))
                feed(UnsafeRawBufferPointer(rebasing: bytes[5..<5]))
                feed(UnsafeRawBufferPointer(rebasing: bytes[5...]))
            }
        }
        #expect(try Hex.encode(pieces) == S3Signer.hexSHA256(whole))
    }

    @Test func getObjectExampleSignsAsAWSPublished() throws {
        let headers = try Self.example.signedHeaders(
            method: "GET", path: "/test.txt", query: [], headers: [Self.host, ("Range", "bytes=0-9")],
            payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(
            Self.authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    @Test func putObjectExampleSignsAsAWSPublished() throws {
        let body = Array("Welcome to Amazon S3.".utf8)
        let hash = try S3Signer.hexSHA256(body)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = try Self.example.signedHeaders(
            method: "PUT", path: "/" + S3Signer.uriEncode("test$file.text", keepingSlash: true), query: [],
            headers: [
                Self.host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ], payloadHash: hash, date: Self.exampleDate)
        #expect(
            Self.authorization(headers).hasSuffix(
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                    + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"))
    }

    @Test func bucketLifecycleExampleSignsAsAWSPublished() throws {
        let headers = try Self.example.signedHeaders(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: [Self.host],
            payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(
            Self.authorization(headers).hasSuffix(
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))
    }

    @Test func listObjectsExampleSignsAsAWSPublished() throws {
        // The query is given out of order: the canonical form sorts it.
        let headers = try Self.example.signedHeaders(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: [Self.host],
            payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(
            Self.authorization(headers).hasSuffix(
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
    }

    @Test func oneSignerSignsEachDayWithThatDaysKey() throws {
        // A signer keeps the signing key of the day it last signed for: signing on another day and back again
        // must give what a fresh signer gives, each time.
        let signer = S3Signer(credentials: Self.example.credentials, region: "us-east-1")
        let days = [Self.exampleDate, Self.exampleDate + 3_600, Self.exampleDate + 86_400, Self.exampleDate]
        for date in days {
            func sign(_ signer: S3Signer) throws -> String {
                Self.authorization(
                    try signer.signedHeaders(
                        method: "GET", path: "/test.txt", query: [], headers: [Self.host],
                        payloadHash: S3Signer.emptyPayloadHash, date: date))
            }
            let fresh = S3Signer(credentials: Self.example.credentials, region: "us-east-1")
            #expect(try sign(signer) == sign(fresh))
        }
        #expect(
            try Self.authorization(
                signer.signedHeaders(
                    method: "GET", path: "/test.txt", query: [], headers: [Self.host, ("Range", "bytes=0-9")],
                    payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
            ).hasSuffix(
                "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"))
    }

    @Test func uriEncodingKeepsOnlyUnreservedBytes() {
        #expect(S3Signer.uriEncode("a b/c~d_e.f-g", keepingSlash: true) == "a%20b/c~d_e.f-g")
        #expect(S3Signer.uriEncode("a/b", keepingSlash: false) == "a%2Fb")
        #expect(S3Signer.uriEncode("é+=&?%*", keepingSlash: true) == "%C3%A9%2B%3D%26%3F%25%2A")
        #expect(S3Signer.canonicalQuery([("b", "2"), ("a", "x y"), ("a", "1")]) == "a=1&a=x%20y&b=2")
    }

    @Test func headerValuesAreTrimmedAndSpacesCollapsed() {
        #expect(S3Signer.trimmedHeaderValue("  a   b  c ") == "a b c")
        // The values that need no change (the common case, returned as they are) and each kind that does.
        for (value, trimmed) in [
            ("", ""), ("a", "a"), ("a b c", "a b c"),
            ("\"3858f62230ac3c915f300c664312c11f\"", "\"3858f62230ac3c915f300c664312c11f\""),
            (" a", "a"), ("a ", "a"), ("a  b", "a b"), ("   ", ""), ("\ta b\t", "a b"), ("a\tb", "a\tb"),
        ] {
            #expect(S3Signer.trimmedHeaderValue(value) == trimmed, "\(value.debugDescription)")
        }
    }

    /// FIPS 180-2's long vector (a million `a`), fed in uneven pieces: the digest libcrypto computes over a large
    /// body, the way a part's payload hash is computed.
    @Test func sha256OfAMillionBytesMatchesTheStandardVector() throws {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let digest = try million.withUnsafeBytes { bytes in
            try S3Digest.sha256 { feed in
                var offset = 0
                var piece = 1
                while offset < bytes.count {
                    let end = min(offset + piece, bytes.count)
                    feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                    piece = piece * 3 + 1
                }
            }
        }
        #expect(Hex.encode(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
