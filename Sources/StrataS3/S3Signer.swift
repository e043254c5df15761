import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// AWS Signature Version 4 for S3: the canonical request, the string to sign, the derived signing key and the
/// `Authorization` header. SHA-256 and HMAC-SHA-256 are OpenSSL's (``S3Digest``), never our own.
struct S3Signer: Sendable {
    /// The SHA-256 of no bytes, in hex: the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    let credentials: S3Credentials
    let region: String
    let service: String
    /// The signing key of the day last signed for (see ``signingKey(day:)``).
    private let keys = S3SigningKeyCache()

    init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request so that the server accepts it: `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` (with a session token) and `Authorization`.
    /// - Parameters:
    ///   - method: `GET`, `PUT`, ...
    ///   - path: The canonical (already encoded) path, `/bucket/key`.
    ///   - query: The query parameters, not encoded.
    ///   - headers: The headers that will be sent (names in any case); all of them are signed. Must include `host`.
    ///   - payloadHash: The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    ///   - date: The signing time.
    /// - Throws: `StorageError` `.io` when libcrypto cannot hash.
    func signedHeaders(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String,
        date: Date
    ) throws(StorageError) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var all = headers
        all.append(("x-amz-date", amzDate))
        all.append(("x-amz-content-sha256", payloadHash))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        let canonical = canonicalRequest(
            method: method, path: path, query: query, headers: all, payloadHash: payloadHash)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign =
            "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(try Self.hexSHA256(Array(canonical.request.utf8)))"
        let key = try keys.key(day: day) { (day) throws(StorageError) in try signingKey(day: day) }
        let signature = Hex.encode(try S3Digest.hmacSHA256(Array(stringToSign.utf8), key: key))
        all.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
                    + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            ))
        return all
    }

    /// The canonical request and its `SignedHeaders` list.
    func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (request: String, signedHeaders: String) {
        var byName: [String: [String]] = [:]
        for (name, value) in headers {
            byName[name.lowercased(), default: []].append(Self.trimmedHeaderValue(value))
        }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        let request = [
            method, path, Self.canonicalQuery(query), canonicalHeaders, signed, payloadHash,
        ].joined(separator: "\n")
        return (request, signed)
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request").
    func signingKey(day: String) throws(StorageError) -> [UInt8] {
        var key = try S3Digest.hmacSHA256(Array(day.utf8), key: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [region, service, "aws4_request"] { key = try S3Digest.hmacSHA256(Array(part.utf8), key: key) }
        return key
    }

    /// The query string in canonical form: every name and value URI-encoded, sorted by name then value.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (uriEncode($0.0, keepingSlash: false), uriEncode($0.1, keepingSlash: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// S3's URI encoding: every byte of the UTF-8 form except `A-Z a-z 0-9 - . _ ~` (and `/` in a path) as `%XX`.
    static func uriEncode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                encoded.append("/")
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    /// A header value with its ends trimmed and inner runs of spaces collapsed to one. Most values have neither
    /// (tags, dates, hashes, numbers): they are returned as they are, without a copy.
    static func trimmedHeaderValue(_ value: String) -> String {
        let space = UInt8(ascii: " ")
        var previous: UInt8 = space
        var clean = true
        for byte in value.utf8 {
            if byte == space && previous == space || byte == UInt8(ascii: "\t") {
                clean = false
                break
            }
            previous = byte
        }
        if clean && previous != space || value.isEmpty { return value }
        return value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `20130524T000000Z` and `20130524` for `date`, in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let day =
            digits(Int(parts.tm_year) + 1900, 4) + digits(Int(parts.tm_mon) + 1, 2) + digits(Int(parts.tm_mday), 2)
        return (
            day + "T" + digits(Int(parts.tm_hour), 2) + digits(Int(parts.tm_min), 2) + digits(Int(parts.tm_sec), 2)
                + "Z", day
        )
    }

    /// `value` in decimal, zero-padded to `width` digits (`String(format:)` costs more than the whole signature).
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    static func hexSHA256(_ bytes: [UInt8]) throws(StorageError) -> String {
        Hex.encode(try S3Digest.sha256 { feed in bytes.withUnsafeBytes { feed($0) } })
    }

    static func hexSHA256(_ bytes: UnsafeRawBufferPointer) throws(StorageError) -> String {
        Hex.encode(try S3Digest.sha256(bytes))
    }
}
