import Foundation
import Testing

@testable import StrataS3

/// The tree of an S3 answer. Foundation's parser reads XML nested to any depth, and the tree is released one level
/// at a time: an answer nested 100,000 deep (a hostile server, or anyone on a plain-HTTP path) overflowed the stack.
@Suite("S3: XML answers")
struct S3XMLTests {
    static func nested(_ levels: Int) -> [UInt8] {
        Array((String(repeating: "<a>", count: levels) + "x" + String(repeating: "</a>", count: levels)).utf8)
    }

    @Test func aListingIsReadAsATree() throws {
        let answer = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>\
            <Contents><Key>k1</Key><Owner><ID>o</ID></Owner></Contents><Contents><Key>k2</Key></Contents>\
            </ListBucketResult>
            """
        let document = try #require(S3XMLElement.parse(Array(answer.utf8)))
        #expect(document.name == "ListBucketResult")
        #expect(document.all("Contents").compactMap { $0.text("Key") } == ["k1", "k2"])
        #expect(document.child("Contents")?.child("Owner")?.text("ID") == "o")
    }

    /// Nested to the limit: read; deeper, even far deeper: refused as malformed (`nil`), without building the tree.
    @Test func anAnswerNestedDeeperThanTheLimitIsRefused() throws {
        var element = try #require(S3XMLElement.parse(Self.nested(S3XMLTreeBuilder.maximumDepth)))
        for _ in 1..<S3XMLTreeBuilder.maximumDepth { element = try #require(element.child("a")) }
        #expect(element.text == "x")
        for levels in [S3XMLTreeBuilder.maximumDepth + 1, 4_000, 100_000] {
            #expect(S3XMLElement.parse(Self.nested(levels)) == nil, "\(levels) levels")
        }
    }
}
