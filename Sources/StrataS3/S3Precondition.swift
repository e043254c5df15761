/// A condition on an object's entity tag that the server checks before acting (`If-Match` / `If-None-Match`).
///
/// A failed condition is a `StorageError` `.conflict` with service code `PreconditionFailed` (or `NotModified` for
/// a read with ``ifNoneMatch(_:)``). Ceph 16.2.15 honours all of them, with two quirks the client handles: on a
/// write it compares the header verbatim (a quoted tag never matches, so writes send the tag unquoted), and on a
/// copy it reads `x-amz-copy-if-match` instead of S3's `x-amz-copy-source-if-match` (so copies send both).
public enum S3Precondition: Sendable, Hashable {
    /// Act only if the object's entity tag is this one (`*`: if the object exists).
    case ifMatch(String)
    /// Act only if the object's entity tag is not this one (`*`: if the object does not exist).
    case ifNoneMatch(String)

    /// The header for a read of the object (the tag quoted, as HTTP writes it).
    var readHeader: (String, String) {
        switch self {
        case .ifMatch(let tag): ("If-Match", Self.quoted(tag))
        case .ifNoneMatch(let tag): ("If-None-Match", Self.quoted(tag))
        }
    }

    /// The header for a write of the object: the tag bare, which both AWS and Ceph (which compares verbatim) take.
    var writeHeader: (String, String) {
        switch self {
        case .ifMatch(let tag): ("If-Match", S3Response.unquoted(tag))
        case .ifNoneMatch(let tag): ("If-None-Match", S3Response.unquoted(tag))
        }
    }

    /// The headers for the source of a copy: S3's name and the one Ceph reads.
    var copySourceHeaders: [(String, String)] {
        switch self {
        case .ifMatch(let tag):
            [("x-amz-copy-source-if-match", Self.quoted(tag)), ("x-amz-copy-if-match", Self.quoted(tag))]
        case .ifNoneMatch(let tag):
            [("x-amz-copy-source-if-none-match", Self.quoted(tag)), ("x-amz-copy-if-none-match", Self.quoted(tag))]
        }
    }

    /// Whether an object whose entity tag is `etag` (nil: no object) meets the condition: for a server that does not
    /// check it itself (Ceph 16.2 does not on a part copy).
    func holds(for etag: String?) -> Bool {
        switch self {
        case .ifMatch(let tag): etag != nil && (tag == "*" || S3Response.unquoted(tag) == etag)
        case .ifNoneMatch(let tag): tag == "*" ? etag == nil : S3Response.unquoted(tag) != etag
        }
    }

    private static func quoted(_ tag: String) -> String {
        tag == "*" || tag.hasPrefix("\"") ? tag : "\"\(tag)\""
    }
}
